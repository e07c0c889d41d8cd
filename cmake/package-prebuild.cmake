# SPDX-License-Identifier: BSD-2-Clause
# CPack runs this after installing each component into its staging
# directory and before making the packages: it adds what Debian expects
# of every binary package and what `cmake --install` does not make.
#
#   - /usr/share/doc/<package>/copyright, machine-readable, from LICENSE;
#   - /usr/share/doc/cpctools/README.Debian (dist/debian/README.Debian);
#   - man pages compressed with gzip -9n (a link to a page is remade to
#     point at the compressed page).
set(src "${CPACK_CPCTOOLS_SOURCE_DIR}")
file(READ "${src}/LICENSE" license)
string(REGEX REPLACE "\n+$" "" license "${license}")
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${license}")
set(holder "${CMAKE_MATCH_1}")
# The license text as a DEP-5 paragraph: every line indented, blank ones
# written as " .".
string(REGEX REPLACE "^[^\n]*\n\nCopyright[^\n]*\n\n" "" terms "${license}")
string(REPLACE "\n\n" "\n.\n" terms "${terms}")
string(REPLACE "\n" "\n " terms "${terms}")
set(copyright "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: cpctools
Upstream-Contact: ${CPACK_DEBIAN_PACKAGE_MAINTAINER}

Files: *
Copyright: ${holder}
License: BSD-2-Clause

License: BSD-2-Clause
 ${terms}
")

find_program(GZIP gzip REQUIRED)
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER "${component}" upper)
  set(package "${CPACK_DEBIAN_${upper}_PACKAGE_NAME}")
  set(root "${CPACK_TEMPORARY_DIRECTORY}/${component}")
  if(NOT package OR NOT IS_DIRECTORY "${root}")
    message(FATAL_ERROR "no package name or staging directory for ${component}")
  endif()

  set(doc "${root}/usr/share/doc/${package}")
  file(MAKE_DIRECTORY "${doc}")
  file(WRITE "${doc}/copyright" "${copyright}")
  if(package STREQUAL "cpctools")
    file(COPY "${src}/dist/debian/README.Debian" DESTINATION "${doc}")
  endif()

  file(GLOB_RECURSE pages LIST_DIRECTORIES false
       "${root}/usr/share/man/*")
  foreach(page IN LISTS pages)
    if(page MATCHES "\\.gz$")
      continue()
    endif()
    if(IS_SYMLINK "${page}")
      file(READ_SYMLINK "${page}" target)
      file(REMOVE "${page}")
      file(CREATE_LINK "${target}.gz" "${page}.gz" SYMBOLIC)
    else()
      execute_process(COMMAND ${GZIP} -9nf "${page}" RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "gzip ${page} failed")
      endif()
    endif()
  endforeach()
endforeach()
