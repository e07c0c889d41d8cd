# SPDX-License-Identifier: BSD-2-Clause
# --format's words, for the build: the formats of rows, one per line of
# cmd/output/formats.def (FORMAT(word, NAME), each the file
# cmd/output/out_word.c), then the formats each sink of cmd/cli/sinks.def
# renders whole (the formats[] of its file cmd/output/NAME/NAME.c), for
# the commands that have that sink. The commands list them in the same
# order (cmd/cli/format_words.c); arch.formats checks that they agree.
# Sets:
#   CPCTOOLS_ROW_FORMATS               the formats of rows (a list)
#   CPUTRACK_FORMATS, CPUSTAT_FORMATS  each command's words, space-separated,
#                                      for the completions
#   CPUTRACK_FORMATS_ROFF, CPUSTAT_FORMATS_ROFF, CPCTOOLS_FORMATS_ROFF
#                                      a man page's line of them (.BR),
#                                      the last of both commands'
set(formats_def ${PROJECT_SOURCE_DIR}/cmd/output/formats.def)
set(sinks_def ${PROJECT_SOURCE_DIR}/cmd/cli/sinks.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${formats_def} ${sinks_def})
file(STRINGS ${formats_def} format_lines
     REGEX "^FORMAT\\([a-z0-9_]+, [A-Z0-9_]+\\)$")
string(REGEX REPLACE "FORMAT\\(([a-z0-9_]+), [A-Z0-9_]+\\)" "\\1"
       CPCTOOLS_ROW_FORMATS "${format_lines}")
if(NOT CPCTOOLS_ROW_FORMATS)
  message(FATAL_ERROR "no format of rows in ${formats_def}")
endif()

# The words the sink of sinks.def's line renders whole, into var.
function(cpctools_sink_formats line var)
  string(REGEX REPLACE "^SINK\\(([a-z0-9_]+)_sink,.*" "\\1" sink "${line}")
  set(source ${PROJECT_SOURCE_DIR}/cmd/output/${sink}/${sink}.c)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
  file(READ ${source} text)
  set(words "")
  if(text MATCHES "formats\\[\\] = {([^}]*)}")
    string(REGEX MATCHALL "\"[a-z0-9_]+\"" words "${CMAKE_MATCH_1}")
    string(REPLACE "\"" "" words "${words}")
  endif()
  set(${var} "${words}" PARENT_SCOPE)
endfunction()

# A man page's line of the words of the list var: ".BR a ", " b " or " c".
function(cpctools_formats_roff words var)
  list(LENGTH words n)
  math(EXPR last "${n} - 1")
  set(roff ".BR")
  foreach(i RANGE ${last})
    list(GET words ${i} word)
    if(i EQUAL 0)
      string(APPEND roff " ${word}")
    elseif(i EQUAL last)
      string(APPEND roff " \" or \" ${word}")
    else()
      string(APPEND roff " \", \" ${word}")
    endif()
  endforeach()
  set(${var} "${roff}" PARENT_SCOPE)
endfunction()

file(STRINGS ${sinks_def} sink_lines REGEX "^SINK\\(")
set(all_formats ${CPCTOOLS_ROW_FORMATS})
foreach(tool CPUTRACK CPUSTAT)
  set(words ${CPCTOOLS_ROW_FORMATS})
  foreach(line IN LISTS sink_lines)
    if(line MATCHES "OUT_TOOLS\\(OUT_${tool}\\)")
      cpctools_sink_formats("${line}" sink_words)
      list(APPEND words ${sink_words})
    endif()
  endforeach()
  list(APPEND all_formats ${words})
  cpctools_formats_roff("${words}" ${tool}_FORMATS_ROFF)
  list(JOIN words " " ${tool}_FORMATS)
endforeach()
list(REMOVE_DUPLICATES all_formats)
cpctools_formats_roff("${all_formats}" CPCTOOLS_FORMATS_ROFF)
