# End-to-end check of blast_gpu, run by ctest as `cmake -D... -P run_blast.cmake`.
# Runs blast_gpu (optionally under mpirun) in a fresh empty directory and checks its exit
# code, its messages, and that it wrote nothing there (no output directory).
#   BLAST_GPU    the executable              WORK  scratch directory (recreated)
#   ARGS         its arguments, separated by '|'
#   MPIEXEC, NP  run as `MPIEXEC -n NP --oversubscribe BLAST_GPU ARGS` when MPIEXEC is set
#   RC           expected exit code
#   EXPECT_FROM  a deck whose lines `; expect: TEXT` give texts that stderr must contain
#   EXPECT       more texts stderr must contain, separated by '|'
#   STDOUT_HAS   texts stdout must contain, separated by '|'
#   STDOUT_EMPTY 1: stdout must be empty
#   ERR_ONCE     a text that must appear exactly once in stderr
#   OUT_ONCE     a text that must appear exactly once in stdout
#   ROUNDTRIP    1: stdout is a deck; `--print-deck` on it must give the same keys and values
cmake_minimum_required(VERSION 3.25)

set(failures "")
macro(fail msg)
  string(APPEND failures "  ${msg}\n")
endmacro()

# Number of occurrences of `needle` in `text`.
function(count_of out text needle)
  string(LENGTH "${text}" n0)
  string(REPLACE "${needle}" "" rest "${text}")
  string(LENGTH "${rest}" n1)
  string(LENGTH "${needle}" nn)
  math(EXPR c "(${n0} - ${n1}) / ${nn}")
  set(${out} ${c} PARENT_SCOPE)
endfunction()

# Check that every '|'-separated text of `texts` occurs in `where` (named `what`).
# Brackets are masked while the texts are a CMake list ([ and ] group list items).
macro(expect_all what where texts)
  string(REPLACE "[" "<LB>" _masked "${texts}")
  string(REPLACE "]" "<RB>" _masked "${_masked}")
  string(REPLACE "|" ";" _masked "${_masked}")
  foreach(_t IN LISTS _masked)
    string(REPLACE "<LB>" "[" _t "${_t}")
    string(REPLACE "<RB>" "]" _t "${_t}")
    if(NOT _t STREQUAL "")
      string(FIND "${${where}}" "${_t}" _pos)
      if(_pos EQUAL -1)
        fail("${what} lacks: ${_t}")
      endif()
    endif()
  endforeach()
endmacro()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
string(REPLACE "|" ";" args "${ARGS}")
set(cmd "${BLAST_GPU}" ${args})
if(MPIEXEC)
  set(cmd "${MPIEXEC}" -n ${NP} --oversubscribe ${cmd})
endif()
execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)

if(NOT "${rc}" STREQUAL "${RC}")
  fail("exit code ${rc}, expected ${RC}")
endif()
if(EXPECT_FROM)
  # Mask ';' and brackets while the lines are a CMake list.
  file(READ "${EXPECT_FROM}" deck)
  string(REPLACE ";" "<SC>" deck "${deck}")
  string(REPLACE "[" "<LB>" deck "${deck}")
  string(REPLACE "]" "<RB>" deck "${deck}")
  string(REGEX MATCHALL "<SC> expect: [^\n]*" lines "${deck}")
  set(texts "")
  foreach(line IN LISTS lines)
    string(REPLACE "<SC> expect: " "" line "${line}")
    string(REPLACE "<SC>" ";" line "${line}")
    string(REPLACE "<LB>" "[" line "${line}")
    string(REPLACE "<RB>" "]" line "${line}")
    string(APPEND texts "|${line}")
  endforeach()
  if(texts STREQUAL "")
    fail("${EXPECT_FROM} has no '; expect: ' line")
  endif()
  expect_all("stderr" err "${texts}")
endif()
if(EXPECT)
  expect_all("stderr" err "${EXPECT}")
endif()
if(STDOUT_HAS)
  expect_all("stdout" out "${STDOUT_HAS}")
endif()
if(STDOUT_EMPTY AND NOT out STREQUAL "")
  fail("stdout is not empty")
endif()
if(ERR_ONCE)
  count_of(c "${err}" "${ERR_ONCE}")
  if(NOT c EQUAL 1)
    fail("stderr has '${ERR_ONCE}' ${c} times, expected once")
  endif()
endif()
if(OUT_ONCE)
  count_of(c "${out}" "${OUT_ONCE}")
  if(NOT c EQUAL 1)
    fail("stdout has '${OUT_ONCE}' ${c} times, expected once")
  endif()
endif()
file(GLOB written LIST_DIRECTORIES true "${WORK}/*")
if(written)
  fail("files written: ${written}")
endif()

if(ROUNDTRIP)
  file(WRITE "${WORK}/echo.ini" "${out}")
  execute_process(COMMAND "${BLAST_GPU}" --print-deck echo.ini WORKING_DIRECTORY "${WORK}"
                  RESULT_VARIABLE rc2 OUTPUT_VARIABLE out2 ERROR_VARIABLE err2)
  if(NOT rc2 EQUAL 0)
    fail("the echo does not parse (exit ${rc2}): ${err2}")
  endif()
  # Same keys and values; comments (source, default marks) may differ.
  foreach(v out out2)
    string(REGEX REPLACE "[ ]*;[^\n]*" "" ${v} "${${v}}")
    string(REGEX REPLACE "\n+" "\n" ${v} "${${v}}")
  endforeach()
  if(NOT out STREQUAL out2)
    fail("the echo of the echo differs:\n${out}\n---\n${out2}")
  endif()
endif()

if(failures)
  message(FATAL_ERROR "command: ${cmd}\n${failures}--- stdout:\n${out}--- stderr:\n${err}")
endif()
