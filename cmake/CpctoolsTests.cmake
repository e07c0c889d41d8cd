# SPDX-License-Identifier: BSD-2-Clause
# How the tests share the machine. scripts/test runs CTest with
# -j (CPCTOOLS_TEST_SLOTS_PER_CPU x the CPUs): most tests spend their time
# waiting (on the commands they run, their ticks, a workload's sleeps), so
# several share a CPU. Every test keeps to its own temporary directory,
# ports chosen at run time and its own processes; what a test cannot keep
# to itself it says with one of these:
#
#   RESOURCE_LOCK whole_cpus  it counts whole CPUs, system-wide, and checks
#                 what it counts (cpustat, cpc_bind_cpu): one such test at a
#                 time, so that none counts the marks another makes. What
#                 the others do on the same CPUs meanwhile it must allow for.
#   RESOURCE_LOCK pmu  it counts hardware events: a cpustat's CPU-wide
#                 hardware groups are pinned and exclusive, and keep every
#                 other hardware event off the PMU while they count. (Such
#                 tests skip themselves where the kernel has no PMU.)
#   RESOURCE_LOCK dpkg  it installs or removes Debian packages.
#   RUN_SERIAL    it takes a CPU offline: every other test's CPUs would
#                 change under it.
#   PROCESSORS ${CPCTOOLS_TEST_CPU}  it keeps a CPU busy from start to end
#                 (a compiler, an emulator, valgrind, a fuzzer): it takes
#                 the slots of a whole CPU.
#
# Tests labelled plain_only are left out of the sanitizer build's run
# (scripts/test --sanitize); the reason is given where the label is set.
set(CPCTOOLS_TEST_SLOTS_PER_CPU 3)
set(CPCTOOLS_TEST_CPU ${CPCTOOLS_TEST_SLOTS_PER_CPU})
