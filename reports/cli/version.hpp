// `fedverify --version` (issue 31 item 5; docs/CLI.md): the version of CMakeLists.txt's project()
// (the one results.json records, reports::fedverify_version) and the git commit of the source
// tree when CMake configured the build (FEDVERIFY_GIT_COMMIT, set on version.cpp alone so that
// a new commit recompiles one file). A build from a tarball, without git, prints the version
// only.
#pragma once

#include <string>

namespace fedverify::reports {

// "fedverify 0.1.0 (commit 6c0df6f1a2b3)" or "fedverify 0.1.0".
std::string version_text();

}  // namespace fedverify::reports
