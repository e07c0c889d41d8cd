# SPDX-License-Identifier: BSD-2-Clause
# cpctools_install_zsh_completion(FILE NAME)
#
# Installs the zsh completion FILE as NAME where zsh looks for it: in
# share/zsh/vendor-completions for prefix /usr (the distribution's place),
# otherwise in the prefix's share/zsh/site-functions (in zsh's fpath for
# /usr/local). The prefix is the one of the install, so that
# `cmake --install build --prefix /usr` is right too.
# CPCTOOLS_ZSH_COMPLETION_DIR, when set, names the directory instead.
function(cpctools_install_zsh_completion file name)
  if(CPCTOOLS_ZSH_COMPLETION_DIR)
    install(FILES ${file} RENAME ${name}
            DESTINATION ${CPCTOOLS_ZSH_COMPLETION_DIR} COMPONENT bin)
    return()
  endif()
  install(CODE "
    if(CMAKE_INSTALL_PREFIX MATCHES \"^/usr/*$\")
      set(zsh_dir \"${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions\")
    else()
      set(zsh_dir \"${CMAKE_INSTALL_DATADIR}/zsh/site-functions\")
    endif()
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${zsh_dir}\"
         TYPE FILE RENAME \"${name}\" FILES \"${file}\")"
    COMPONENT bin)
endfunction()
