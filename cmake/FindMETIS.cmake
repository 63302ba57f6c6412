# FindMETIS
# ---------
# Finds the METIS graph partitioning library (Debian: libmetis-dev).
#
# Imported target: METIS::METIS
# Result variables: METIS_FOUND, METIS_INCLUDE_DIR, METIS_LIBRARY, METIS_IDXTYPEWIDTH
# Hints: METIS_ROOT (CMake policy CMP0074), METIS_DIR.

find_path(METIS_INCLUDE_DIR metis.h HINTS ${METIS_DIR} PATH_SUFFIXES include include/metis)
find_library(METIS_LIBRARY metis HINTS ${METIS_DIR} PATH_SUFFIXES lib lib64)

if(METIS_INCLUDE_DIR AND EXISTS "${METIS_INCLUDE_DIR}/metis.h")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_idx REGEX "^#define IDXTYPEWIDTH [0-9]+")
  string(REGEX REPLACE ".*IDXTYPEWIDTH ([0-9]+).*" "\\1" METIS_IDXTYPEWIDTH "${_metis_idx}")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_ver REGEX "^#define METIS_VER_(MAJOR|MINOR|SUBMINOR) ")
  string(REGEX REPLACE ".*METIS_VER_MAJOR ([0-9]+).*" "\\1" _maj "${_metis_ver}")
  string(REGEX MATCH "METIS_VER_MINOR +([0-9]+)" _min "${_metis_ver}")
  string(REGEX REPLACE "METIS_VER_MINOR +" "" _min "${_min}")
  if(_maj MATCHES "^[0-9]+$")
    set(METIS_VERSION "${_maj}.${_min}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS
  REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR
  VERSION_VAR METIS_VERSION
  REASON_FAILURE_MESSAGE "Install METIS (Debian: apt-get install libmetis-dev) or set METIS_ROOT.")

if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES
    IMPORTED_LOCATION "${METIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "BLAST_METIS_IDXTYPEWIDTH=${METIS_IDXTYPEWIDTH}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
