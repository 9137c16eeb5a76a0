//===- MakeTestModule.cpp - Write the test module to a file ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-runtime-make-test-module SHARED_OBJECT OUTPUT
//
// Writes the module of TestModules.h around the shared object built from
// Inputs/add_kernel.c, for the fuzz test (boo-module-fuzz-asan).
//
//===----------------------------------------------------------------------===//

#include "TestModules.h"

#include <cstdio>
#include <fstream>

using namespace boo::runtime;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SHARED_OBJECT OUTPUT\n", argv[0]);
    return 2;
  }
  std::string sharedObject, bytes, error;
  if (!test::readFile(argv[1], sharedObject)) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  if (!serializeModule(test::makeTestModule(sharedObject, 1000), bytes,
                       error)) {
    fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out.write(bytes.data(), bytes.size());
  if (!out) {
    fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
