# SPDX-License-Identifier: BSD-2-Clause
# The CMake package config: find_package(cpctools) in a consumer gives
# imported targets for the installed libraries (cpctools-config.cmake.in
# lists them), with a version file so that find_package(cpctools 0.1)
# refuses another major version. Everything is relative to the installed
# files, so the tree can be moved.
include(CMakePackageConfigHelpers)
set(cpctools_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cpctools)

install(EXPORT cpctools-targets NAMESPACE cpctools::
        DESTINATION ${cpctools_cmake_dir} COMPONENT dev)
configure_package_config_file(cmake/cpctools-config.cmake.in
  ${PROJECT_BINARY_DIR}/cpctools-config.cmake
  INSTALL_DESTINATION ${cpctools_cmake_dir}
  NO_SET_AND_CHECK_MACRO)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cpctools-config-version.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cpctools-config.cmake
              ${PROJECT_BINARY_DIR}/cpctools-config-version.cmake
        DESTINATION ${cpctools_cmake_dir} COMPONENT dev)
