# SPDX-License-Identifier: BSD-2-Clause
# The sinks' options, for the completions: each row of cmd/cli/sinks.def
# (SINK(NAME_sink, tools)) names the file cmd/output/NAME/NAME.c, whose
# options[] (struct out_sink_option) this reads, in the table's order, for
# the commands that have the sink and the option. An option's description
# is its usage's text; its argument's, the word after "=" of its usage's
# first line, and an argument named file completes file names.
# Sets, for TOOL CPUTRACK and CPUSTAT:
#   TOOL_SINK_OPTIONS_ZSH
#       _arguments' specs, a quoted word a line, for an array
#       (the lines after the first indented by 4)
#   TOOL_SINK_OPTIONS_BASH
#       the options as bash offers them (--listen= --top -b), one line
#   TOOL_SINK_FILE_OPTIONS_BASH, TOOL_SINK_ARG_OPTIONS_BASH
#       those that take a file, and those that take another argument,
#       as they are spelt before it (--web-config -o), one line
set(sinks_def ${PROJECT_SOURCE_DIR}/cmd/cli/sinks.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${sinks_def})
# A C string literal, and a run of them (concatenated).
set(c_literal "\"([^\"\\\\]|\\\\.)*\"")
set(c_literals "([ \t\n]*${c_literal})+")

# line after the lines of var, each on a line of its own in the array
# of the template. A string, not a list: a text may hold ";" or "[".
function(cpctools_append_line var line)
  if(line STREQUAL "")
    return()
  elseif("${${var}}" STREQUAL "")
    set(${var} "${line}" PARENT_SCOPE)
  else()
    set(${var} "${${var}}\n    ${line}" PARENT_SCOPE)
  endif()
endfunction()

# The text of the C literals in code, joined and unescaped, into var.
function(cpctools_c_text code var)
  set(text "")
  # Literal by literal: a list would split a text at its ";".
  while(code MATCHES "^[^\"]*\"(([^\"\\\\]|\\\\.)*)\"(.*)$")
    string(APPEND text "${CMAKE_MATCH_1}")
    set(code "${CMAKE_MATCH_3}")
  endwhile()
  string(REPLACE "\\t" "\t" text "${text}")
  string(REPLACE "\\n" "\n" text "${text}")
  string(REPLACE "\\\"" "\"" text "${text}")
  string(REPLACE "\\\\" "\\" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# The usage text of option (one entry of options[]) in tool's words: its
# help[OUT_tool], else its first.
function(cpctools_option_help option tool var)
  set(help "")
  if(option MATCHES "\\.help = {(([^}\"]|${c_literal})*)}")
    set(block "${CMAKE_MATCH_1}")
    if(block MATCHES "\\[OUT_${tool}\\] =(${c_literals})")
      set(block "${CMAKE_MATCH_1}")
    elseif(block MATCHES "(${c_literals})")
      set(block "${CMAKE_MATCH_1}")
    endif()
    cpctools_c_text("${block}" help)
  endif()
  set(${var} "${help}" PARENT_SCOPE)
endfunction()

# option's usage in tool's words, split: its first word (--listen=addr:port)
# into usage_var, the rest into text_var.
function(cpctools_option_usage option tool usage_var text_var)
  cpctools_option_help("${option}" ${tool} help)
  string(REGEX REPLACE "^\t+" "" help "${help}")
  set(usage "")
  if(help MATCHES "^([^\t\n]+)")
    set(usage "${CMAKE_MATCH_1}")
  endif()
  string(LENGTH "${usage}" n)
  string(SUBSTRING "${help}" ${n} -1 text)
  set(${usage_var} "${usage}" PARENT_SCOPE)
  set(${text_var} "${text}" PARENT_SCOPE)
endfunction()

# The word that names option's argument in its usage (addr:port, file),
# into var; empty for an option without one.
function(cpctools_option_arg option tool var)
  cpctools_option_usage("${option}" ${tool} usage text)
  set(arg "")
  if(usage MATCHES "^-[-a-z0-9]*[= ](.+)$")
    set(arg "${CMAKE_MATCH_1}")
  endif()
  set(${var} "${arg}" PARENT_SCOPE)
endfunction()

# option's spellings, --name then -letter, into var (a list); where it
# takes an argument, long_mark after --name and letter_mark after -letter.
function(cpctools_option_words option long_mark letter_mark var)
  if(NOT option MATCHES "\\.takes_arg = true")
    set(long_mark "")
    set(letter_mark "")
  endif()
  set(words "")
  if(option MATCHES "\\.name = \"([^\"]+)\"")
    list(APPEND words "--${CMAKE_MATCH_1}${long_mark}")
  endif()
  if(option MATCHES "\\.letter = '(.)'")
    list(APPEND words "-${CMAKE_MATCH_1}${letter_mark}")
  endif()
  set(${var} "${words}" PARENT_SCOPE)
endfunction()

# zsh's spec of option for tool, into var: --name=[text]:argument:action.
function(cpctools_zsh_spec option tool var)
  cpctools_option_usage("${option}" ${tool} usage text)
  string(REGEX REPLACE "[ \t\n]+" " " text "${text}")
  string(STRIP "${text}" text)
  string(REGEX REPLACE "([][])" "\\\\\\1" text "${text}")
  cpctools_option_arg("${option}" ${tool} arg)
  string(REPLACE ":" "\\:" message "${arg}")
  set(action "")
  if(arg MATCHES "file$")
    set(action "_files")
  endif()
  cpctools_option_words("${option}" "=" "+" specs)
  set(lines "")
  foreach(word IN LISTS specs)
    set(spec "${word}[${text}]")
    if(option MATCHES "\\.takes_arg = true")
      string(APPEND spec ":${message}:${action}")
    endif()
    string(REPLACE "'" "'\\''" spec "${spec}")
    cpctools_append_line(lines "'${spec}'")
  endforeach()
  set(${var} "${lines}" PARENT_SCOPE)
endfunction()

# bash's words of option for tool, appended to the parent's sink_bash
# (each spelling as offered), sink_file and sink_arg (each spelling of an
# option that takes a file, or another argument).
function(cpctools_bash_words option tool)
  cpctools_option_words("${option}" "=" "" offered)
  list(APPEND sink_bash ${offered})
  if(option MATCHES "\\.takes_arg = true")
    cpctools_option_words("${option}" "" "" spelt)
    cpctools_option_arg("${option}" ${tool} arg)
    if(arg MATCHES "file$")
      list(APPEND sink_file ${spelt})
    else()
      list(APPEND sink_arg ${spelt})
    endif()
  endif()
  foreach(var sink_bash sink_file sink_arg)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()

# The options of sink's file for tool: zsh's specs appended to the
# parent's sink_zsh (lines), bash's words to sink_bash, sink_file and
# sink_arg (lists).
function(cpctools_sink_options source tool)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
  file(READ ${source} text)
  string(FIND "${text}" "options[] = {" start)
  if(start LESS 0)
    return()
  endif()
  string(SUBSTRING "${text}" ${start} -1 text)
  string(FIND "${text}" "\n};" end)
  string(SUBSTRING "${text}" 0 ${end} text)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  # Each option's entry starts with "{ ." (the "{ 0 }" that ends them
  # does not): a mark there, then an entry from one mark to the next.
  string(ASCII 1 mark)
  string(REGEX REPLACE "{[ \t\n]*\\." "${mark}." text "${text}")
  string(FIND "${text}" "${mark}" at)
  while(at GREATER_EQUAL 0)
    math(EXPR at "${at} + 1")
    string(SUBSTRING "${text}" ${at} -1 text)
    string(FIND "${text}" "${mark}" at)
    string(SUBSTRING "${text}" 0 ${at} option)
    if(option MATCHES "\\.tools = ([^,}]*)" AND
       NOT CMAKE_MATCH_1 MATCHES "OUT_TOOLS\\(OUT_${tool}\\)")
      continue()
    endif()
    cpctools_zsh_spec("${option}" ${tool} option_specs)
    cpctools_append_line(sink_zsh "${option_specs}")
    cpctools_bash_words("${option}" ${tool})
  endwhile()
  foreach(var sink_zsh sink_bash sink_file sink_arg)
    set(${var} "${${var}}" PARENT_SCOPE)
  endforeach()
endfunction()

file(STRINGS ${sinks_def} sink_lines REGEX "^SINK\\(")
foreach(tool CPUTRACK CPUSTAT)
  foreach(var sink_zsh sink_bash sink_file sink_arg)
    set(${var} "")
  endforeach()
  foreach(line IN LISTS sink_lines)
    if(NOT line MATCHES "OUT_TOOLS\\(OUT_${tool}\\)")
      continue()
    endif()
    string(REGEX REPLACE "^SINK\\(([a-z0-9_]+)_sink,.*" "\\1" sink "${line}")
    cpctools_sink_options(
      ${PROJECT_SOURCE_DIR}/cmd/output/${sink}/${sink}.c ${tool})
  endforeach()
  set(${tool}_SINK_OPTIONS_ZSH "${sink_zsh}")
  list(JOIN sink_bash " " ${tool}_SINK_OPTIONS_BASH)
  list(JOIN sink_file " " ${tool}_SINK_FILE_OPTIONS_BASH)
  list(JOIN sink_arg " " ${tool}_SINK_ARG_OPTIONS_BASH)
endforeach()
