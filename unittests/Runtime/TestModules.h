//===- TestModules.h - Modules built around the test code object -*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Module descriptions whose CPU code is Inputs/add_kernel.c, built as a
// shared library by CMake; shared by the runtime tests and the tool that
// writes the module the fuzz test damages.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_UNITTESTS_RUNTIME_TESTMODULES_H
#define BOO_UNITTESTS_RUNTIME_TESTMODULES_H

#include "boo/ModuleFormat.h"

#include <string>

namespace boo {
namespace runtime {
namespace test {

/// Reads a whole file; false when it cannot be read.
bool readFile(const std::string &path, std::string &bytes);

/// The host's CPU target name: "x86_64" or "aarch64".
const char *getHostArch();

/// A module with one CPU target for the host (requiring `features`) and
/// these functions, all in one code object `sharedObject`:
///   @add(a: f32[n], b: f32[n]) -> (c: f32[n], stats: i32[3])
///       entry `addEntry` (boo_test_add unless overridden)
///   @describe(x: f32[2,3,4]) -> (out: i32[8])        boo_test_describe
///   @nested(x: f32[n]) -> (out: i32[2])              boo_test_nested
ModuleDesc makeTestModule(const std::string &sharedObject, int64_t n,
                          const std::string &features = "",
                          const std::string &addEntry = "boo_test_add");

} // namespace test
} // namespace runtime
} // namespace boo

#endif // BOO_UNITTESTS_RUNTIME_TESTMODULES_H
