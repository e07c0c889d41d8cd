# SPDX-License-Identifier: BSD-2-Clause
# cpctools_add_library(NAME MAP version-script SOURCES file...)
#
# Compiles the sources once, position-independent and with hidden
# visibility (target NAME_objects), and makes from those objects
#   NAME         lib<NAME>.a, what the commands and tests link;
#   NAME_shared  lib<NAME>.so.CPCTOOLS_SOVERSION (with CPCTOOLS_SHARED),
#                exporting exactly the names in the version script.
# Both carry the public include directory; the caller adds the libraries
# each one links. The export names are NAME_static and NAME, so that
# find_package(cpctools) gives cpctools::NAME (shared) and
# cpctools::NAME_static.
function(cpctools_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MAP" "SOURCES")
  if(NOT arg_MAP OR NOT arg_SOURCES)
    message(FATAL_ERROR "cpctools_add_library(${name}): MAP and SOURCES")
  endif()
  get_filename_component(map ${arg_MAP} ABSOLUTE)

  add_library(${name}_objects OBJECT ${arg_SOURCES})
  set_target_properties(${name}_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden)
  target_include_directories(${name}_objects
    PUBLIC ${PROJECT_SOURCE_DIR}/include)

  set(public_include
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

  add_library(${name} STATIC $<TARGET_OBJECTS:${name}_objects>)
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name}_static)
  target_include_directories(${name} PUBLIC ${public_include})

  if(CPCTOOLS_SHARED)
    add_library(${name}_shared SHARED $<TARGET_OBJECTS:${name}_objects>)
    set_target_properties(${name}_shared PROPERTIES
      OUTPUT_NAME ${name}
      EXPORT_NAME ${name}
      SOVERSION ${CPCTOOLS_SOVERSION}
      VERSION ${CPCTOOLS_SOVERSION}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH}
      LINK_DEPENDS ${map})
    target_include_directories(${name}_shared PUBLIC ${public_include})
    # Bound at load: a lazy first call writes the GOT, and libcpc's
    # overflow handler must not fault before it freezes the counters.
    target_link_options(${name}_shared PRIVATE
      LINKER:--version-script=${map} LINKER:-z,now)
    # Every symbol the library uses must come from a library it names.
    # The sanitizer runtimes are linked into programs, not libraries.
    if(NOT CPCTOOLS_ANY_SANITIZER)
      target_link_options(${name}_shared PRIVATE LINKER:--no-undefined)
    endif()
  endif()
endfunction()

# cpctools_pkgconfig(TEMPLATE.pc.in)
#
# Configures the pkg-config file into the build tree and installs it into
# <libdir>/pkgconfig. With CPCTOOLS_PKGCONFIG_RELOCATABLE (the default) its
# paths start from ${pcfiledir}, the directory the .pc file is found in, so
# that a tree installed from source can be moved (a staging prefix, a
# DESTDIR) and still gives right flags; a distribution's package turns it
# off and names its own absolute paths, as its other .pc files do.
function(cpctools_pkgconfig template)
  string(REGEX REPLACE "\\.in$" "" out ${template})
  set(pcdir ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig)
  if(CPCTOOLS_PKGCONFIG_RELOCATABLE)
    file(RELATIVE_PATH rel ${pcdir} ${CMAKE_INSTALL_PREFIX})
    string(REGEX REPLACE "/$" "" rel "${rel}")
    set(PC_PREFIX "\${pcfiledir}/${rel}")
  else()
    set(PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  endif()
  file(RELATIVE_PATH PC_LIBDIR ${CMAKE_INSTALL_PREFIX}
       ${CMAKE_INSTALL_FULL_LIBDIR})
  file(RELATIVE_PATH PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX}
       ${CMAKE_INSTALL_FULL_INCLUDEDIR})
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/${out} @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${out}
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endfunction()
