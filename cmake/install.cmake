# The CMake package (docs/DEVELOPMENT.md, "Using fedverify from CMake"): `cmake --install BUILD --prefix P`
# installs
#   P/include/fedverify/<repository path of every library header> (theory/base/linalg.hpp, …),
#   P/lib/libfedverify_<layer>.a and P/bin/fedverify,
#   P/lib/cmake/fedverify/fedverifyConfig.cmake (+ version file and the exported targets),
# so that an external project's find_package(fedverify) gets fedverify::fedverify: every layer
# up to the command line, linked as whole archives (the registrars of algorithms and claims are
# kept) with its dependencies found through find_dependency. examples/external-claim is such a
# project; ctest `package.external_claim` installs into a temporary prefix and builds and runs it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Every library layer (fedverify_layer() records them; the test-only layers are not installed).
get_property(FEDVERIFY_LIBRARY_LAYERS GLOBAL PROPERTY FEDVERIFY_LIBRARY_LAYERS)
set(FEDVERIFY_HEADER_DIRS theory estimators verify/claims reports/runs reports/report reports/cli)
foreach(dir IN LISTS FEDVERIFY_HEADER_DIRS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fedverify/${dir}
          COMPONENT development FILES_MATCHING PATTERN "*.hpp"
          PATTERN "testing" EXCLUDE)
endforeach()

# fedverify::fedverify: the whole library, the command line's layer and everything below it.
add_library(fedverify_package INTERFACE)
set_target_properties(fedverify_package PROPERTIES EXPORT_NAME fedverify)
fedverify_link_layer(fedverify_package INTERFACE cli)
set(layer_targets "")
foreach(layer IN LISTS FEDVERIFY_LIBRARY_LAYERS)
  list(APPEND layer_targets fedverify_${layer})
endforeach()
install(TARGETS ${layer_targets} fedverify_package EXPORT fedverifyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(TARGETS fedverify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(EXPORT fedverifyTargets NAMESPACE fedverify:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedverify
        COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fedverifyConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/fedverifyConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedverify)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/fedverifyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/fedverifyConfig.cmake ${CMAKE_BINARY_DIR}/fedverifyConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedverify COMPONENT development)

# The external project, built against a fresh install (configure + build ≈ a minute: it compiles
# two files and links the library).
add_test(NAME package.external_claim
         COMMAND bash ${PROJECT_SOURCE_DIR}/examples/external-claim/run_from_install.sh
                 ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/package-test ${CMAKE_COMMAND})
set_tests_properties(package.external_claim PROPERTIES LABELS "fast;package" TIMEOUT 900)
