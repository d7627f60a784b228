# The layer machinery (docs/ARCHITECTURE.md, "Layers"): each layer is one static library built
# from every .cpp of its folders (tests aside), linked only to the layers it names. Each folder's
# CMakeLists.txt declares its layers with fedverify_layer(); the include rules are checked by
# verify/architecture/check_layers.py before any layer is compiled, from the table written here
# (${CMAKE_BINARY_DIR}/layers.txt, by fedverify_write_layer_table() once all layers are declared).
#
#   fedverify_layer(<name> DIRS <folder>… [DEPENDS <layer>…] [EXCLUDE <regex>…] [TEST_ONLY]
#                   [PRECOMPILED [ALSO <header>…]])
#
# PRECOMPILED: the layer's files share one precompiled header of FEDVERIFY_PRECOMPILED_HEADERS
# (cmake/flags.cmake), for layers of many light files (the claims, the report, the CLI); ALSO adds
# headers of the tree (repository paths) that most of the layer's files include. A precompiled
# header only saves parsing: a file must still include what it uses (a build with FEDVERIFY_PCH=OFF,
# such as the one clang-tidy reads, says so when it does not).
# A TEST_ONLY layer is linked into test executables only: no library layer may depend on it.
# The layers of a run are linked as whole archives: algorithms and claims register themselves
# through static registrars, which a plain static link would drop (nothing refers to them).
set_property(GLOBAL PROPERTY FEDVERIFY_LAYER_TABLE "")
set_property(GLOBAL PROPERTY FEDVERIFY_TEST_ONLY_LAYERS "")
set_property(GLOBAL PROPERTY FEDVERIFY_LIBRARY_LAYERS "")  # the others, installed (install.cmake)

find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_custom_target(fedverify_check_layers
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/verify/architecture/check_layers.py
          --root ${PROJECT_SOURCE_DIR} --layers ${CMAKE_BINARY_DIR}/layers.txt
  COMMENT "Checking that every #include points to the same or a lower layer"
  VERBATIM)

# fedverify_link_layer(<target> <scope> <layer>): links a layer as a whole archive, or as the
# interface it is when it has no sources (base). A layer declared later (a test of verify/ linking
# the command line's layer of reports/) is a library: only base is an interface, and it comes first.
function(fedverify_link_layer target scope layer)
  if(TARGET fedverify_${layer})
    get_target_property(type fedverify_${layer} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      target_link_libraries(${target} ${scope} fedverify_${layer})
      return()
    endif()
  endif()
  # The installed package names the layers fedverify::fedverify_<layer> (cmake/install.cmake;
  # export does not rewrite a target name inside $<LINK_LIBRARY:…>).
  target_link_libraries(
    ${target} ${scope} "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,fedverify_${layer}>>"
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,fedverify::fedverify_${layer}>>")
endfunction()

function(fedverify_layer name)
  cmake_parse_arguments(L "TEST_ONLY;PRECOMPILED" "" "DIRS;DEPENDS;EXCLUDE;ALSO" ${ARGN})
  set(sources "")
  foreach(dir IN LISTS L_DIRS)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp)
    list(FILTER found EXCLUDE REGEX ".*_(slow)?test\\.cpp$")
    list(APPEND sources ${found})
  endforeach()
  foreach(pattern IN LISTS L_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${pattern}")
  endforeach()
  set(target fedverify_${name})
  if(sources)
    add_library(${target} STATIC ${sources})
    set(scope PUBLIC)
    target_compile_options(${target} PUBLIC ${FEDVERIFY_OPT} PRIVATE ${FEDVERIFY_WARNINGS})
    if(L_PRECOMPILED AND FEDVERIFY_PCH)
      list(TRANSFORM L_ALSO PREPEND ${PROJECT_SOURCE_DIR}/)
      target_precompile_headers(${target} PRIVATE ${FEDVERIFY_PRECOMPILED_HEADERS} ${L_ALSO})
    endif()
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
    target_compile_options(${target} INTERFACE ${FEDVERIFY_OPT})
  endif()
  get_property(test_only_layers GLOBAL PROPERTY FEDVERIFY_TEST_ONLY_LAYERS)
  foreach(dep IN LISTS L_DEPENDS)
    if(NOT L_TEST_ONLY AND dep IN_LIST test_only_layers)
      message(FATAL_ERROR "layer ${name} may not depend on the test-only layer ${dep}")
    endif()
    fedverify_link_layer(${target} ${scope} ${dep})
  endforeach()
  add_dependencies(${target} fedverify_check_layers)
  string(REPLACE ";" "," dirs_csv "${L_DIRS}")
  string(REPLACE ";" "," deps_csv "${L_DEPENDS}")
  if(NOT deps_csv)
    set(deps_csv "-")
  endif()
  set(kind library)
  if(L_TEST_ONLY)
    set(kind test)
    set_property(GLOBAL APPEND PROPERTY FEDVERIFY_TEST_ONLY_LAYERS ${name})
  else()
    set_property(GLOBAL APPEND PROPERTY FEDVERIFY_LIBRARY_LAYERS ${name})
  endif()
  set_property(GLOBAL APPEND_STRING PROPERTY FEDVERIFY_LAYER_TABLE
               "${name} ${dirs_csv} ${deps_csv} ${kind}\n")
  set_property(TARGET ${target} PROPERTY FEDVERIFY_DIRS ${L_DIRS})
endfunction()

# Writes the layer table check_layers.py reads; call once, after the last fedverify_layer().
function(fedverify_write_layer_table)
  get_property(table GLOBAL PROPERTY FEDVERIFY_LAYER_TABLE)
  file(WRITE ${CMAKE_BINARY_DIR}/layers.txt "${table}")
endfunction()
