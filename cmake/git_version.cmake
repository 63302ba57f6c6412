# Build id of blast_gpu, computed at build time (not configure time), on every build:
#   cmake -DSRC=<source dir> -DOUT=<header> -P git_version.cmake
# Run by the blast_git_version target (app/CMakeLists.txt). Writes OUT, a header that defines
# BLAST_GIT as `git describe --always --dirty --tags` of SRC, or "unknown" where that cannot
# be had (no git, no .git: a source tarball). Never fails the build. OUT is rewritten only
# when its text changes, so a build of an unchanged tree recompiles nothing.
if(NOT SRC OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DSRC=<source dir> -DOUT=<header> -P git_version.cmake")
endif()

set(_blast_git "unknown")
# SRC's own .git only (a directory, or a file in a worktree or submodule): a tarball
# unpacked inside some other repository must not take that repository's commit.
if(EXISTS "${SRC}/.git")
  find_program(_blast_git_exe NAMES git)
  if(_blast_git_exe)
    execute_process(COMMAND "${_blast_git_exe}" describe --always --dirty --tags
                    WORKING_DIRECTORY "${SRC}"
                    RESULT_VARIABLE _rc
                    OUTPUT_VARIABLE _out
                    OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
    if(_rc EQUAL 0 AND NOT _out STREQUAL "")
      set(_blast_git "${_out}")
    endif()
  endif()
endif()
# A C string literal: escape what a tag name could hold that C would not take as is.
string(REPLACE "\\" "\\\\" _blast_git "${_blast_git}")
string(REPLACE "\"" "\\\"" _blast_git "${_blast_git}")

set(_text "/* Generated at build time by cmake/git_version.cmake: do not edit. */
#ifndef BLAST_GIT_H
#define BLAST_GIT_H
#define BLAST_GIT \"${_blast_git}\"
#endif
")
set(_old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE "${OUT}" "${_text}")
  message(STATUS "blast_gpu build id: ${_blast_git}")
endif()
