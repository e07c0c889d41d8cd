# SPDX-License-Identifier: BSD-2-Clause
# cmake -DMANIFEST=<build>/install_manifest.txt -P uninstall.cmake
#
# Removes every file the last `cmake --install` wrote (the manifest lists
# them, DESTDIR included), then those of their directories that are empty
# and belong to cpctools alone (named cpctools, such as lib/cmake/cpctools
# and share/doc/cpctools). Shared directories (bin, share/man/man1, ...)
# stay, even when empty.
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "Nothing to uninstall: ${MANIFEST} is missing "
          "(install first, from this build directory)")
endif()
file(STRINGS "${MANIFEST}" files)
set(dirs "")
foreach(file IN LISTS files)
  if(IS_SYMLINK "${file}" OR EXISTS "${file}")
    message(STATUS "Removing ${file}")
    file(REMOVE "${file}")
    if(IS_SYMLINK "${file}" OR EXISTS "${file}")
      message(FATAL_ERROR "Cannot remove ${file}")
    endif()
  else()
    message(STATUS "Already gone: ${file}")
  endif()
  get_filename_component(dir "${file}" DIRECTORY)
  list(APPEND dirs "${dir}")
endforeach()
list(REMOVE_DUPLICATES dirs)
foreach(dir IN LISTS dirs)
  get_filename_component(name "${dir}" NAME)
  if(name STREQUAL "cpctools" AND IS_DIRECTORY "${dir}")
    file(GLOB left "${dir}/*")
    if(NOT left)
      message(STATUS "Removing ${dir}")
      file(REMOVE_RECURSE "${dir}")
    endif()
  endif()
endforeach()
