# Test executables (docs/DEVELOPMENT.md, "Tests"). Every *_test.cpp is one GoogleTest executable
# labelled `fast`, every *_slowtest.cpp one labelled `slow` (excluded by `ctest -LE slow`). A unit
# test sits beside the module it tests, in that module's layer folder, obeys that layer's include
# rules (verify/architecture/check_layers.py) and links that layer only, with the layers below it:
# editing a claim relinks no test of the chain engine. A test that includes the test-only layer
# verify/planted links it too. Theorem suites (verify/*_test.cpp), which check one layer against
# another or run the whole catalogue, link the command line's layer.
#
# An executable is named after its file; files of the same name in different layers are prefixed
# by their layer (theory_scaffold_test for theory/algorithms/scaffold_test.cpp, samplers_scaffold_test
# for the sampler's): fedverify_test_name() below.
enable_testing()
include(GoogleTest)

# All test files of the tree, to tell which names occur twice (collected before any is added).
file(GLOB_RECURSE FEDVERIFY_ALL_TEST_FILES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/theory/*_test.cpp ${PROJECT_SOURCE_DIR}/theory/*_slowtest.cpp
     ${PROJECT_SOURCE_DIR}/estimators/*_test.cpp ${PROJECT_SOURCE_DIR}/estimators/*_slowtest.cpp
     ${PROJECT_SOURCE_DIR}/verify/*_test.cpp ${PROJECT_SOURCE_DIR}/verify/*_slowtest.cpp
     ${PROJECT_SOURCE_DIR}/reports/*_test.cpp ${PROJECT_SOURCE_DIR}/reports/*_slowtest.cpp)
set(FEDVERIFY_ALL_TEST_NAMES "")
foreach(src IN LISTS FEDVERIFY_ALL_TEST_FILES)
  get_filename_component(name ${src} NAME_WE)
  list(APPEND FEDVERIFY_ALL_TEST_NAMES ${name})
endforeach()

# fedverify_test_name(<src> <prefix> <out>): the file's stem, or <prefix>_<stem> when another
# test file of the tree has the same stem.
function(fedverify_test_name src prefix out)
  get_filename_component(name ${src} NAME_WE)
  set(same ${FEDVERIFY_ALL_TEST_NAMES})
  list(FILTER same INCLUDE REGEX "^${name}$")
  list(LENGTH same copies)
  if(copies GREATER 1)
    set(name ${prefix}_${name})
  endif()
  if(TARGET ${name})
    message(FATAL_ERROR "test ${src}: the executable name ${name} is taken; rename the file")
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# fedverify_test(<src> PREFIX <p> LINK <layer>… [LIBRARIES <target>…]): one GoogleTest
# executable of one file, linking the layers (as whole archives) and the other targets.
function(fedverify_test src)
  cmake_parse_arguments(T "" "PREFIX" "LINK;LIBRARIES" ${ARGN})
  fedverify_test_name(${src} ${T_PREFIX} name)
  set(kind fast)
  if(name MATCHES "_slowtest$")
    set(kind slow)
  endif()
  add_executable(${name} ${src})
  set(layers ${T_LINK})
  file(STRINGS ${src} planted REGEX "^#include \"verify/planted/")
  if(planted)
    list(APPEND layers planted)
  endif()
  foreach(layer IN LISTS layers)
    fedverify_link_layer(${name} PRIVATE ${layer})
  endforeach()
  target_link_libraries(${name} PRIVATE ${T_LIBRARIES} GTest::gtest GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${FEDVERIFY_WARNINGS})
  # The repository root, for tests that read the committed data of verify/data/.
  target_compile_definitions(${name} PRIVATE FEDVERIFY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # One precompiled header for every test (cmake/flags.cmake): the first test builds it.
  if(FEDVERIFY_PCH)
    get_property(pch GLOBAL PROPERTY FEDVERIFY_TEST_PCH)
    if(pch)
      target_precompile_headers(${name} REUSE_FROM ${pch})
    else()
      target_precompile_headers(${name} PRIVATE ${FEDVERIFY_PRECOMPILED_HEADERS} <gtest/gtest.h>)
      set_property(GLOBAL PROPERTY FEDVERIFY_TEST_PCH ${name})
    endif()
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${kind} DISCOVERY_TIMEOUT 60)
endfunction()

# fedverify_layer_tests(<layer> [RUNTIME <layer>…]): the unit tests of every folder of the
# layer, each linking the layer and the RUNTIME layers: layers whose registrations the tests look
# up by name at run time but whose headers they do not include (check_layers.py still holds).
function(fedverify_layer_tests layer)
  cmake_parse_arguments(T "" "" "RUNTIME" ${ARGN})
  if(NOT FEDVERIFY_TESTS)
    return()
  endif()
  get_target_property(dirs fedverify_${layer} FEDVERIFY_DIRS)
  foreach(dir IN LISTS dirs)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*_test.cpp
                                              ${PROJECT_SOURCE_DIR}/${dir}/*_slowtest.cpp)
    list(SORT found)
    foreach(src IN LISTS found)
      fedverify_test(${src} PREFIX ${layer} LINK ${layer} ${T_RUNTIME})
    endforeach()
  endforeach()
endfunction()
