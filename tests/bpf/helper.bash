# SPDX-License-Identifier: BSD-2-Clause
# The CLI tests' set-up, for the cputrack helpers that load it by this name.
load ../cli/helper
