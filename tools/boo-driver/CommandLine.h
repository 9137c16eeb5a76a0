//===- CommandLine.h - boo-driver's command line ---------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-driver's command line holds its own flags and an MIOpenDriver command
// in one: the split between the two, and the benchmark flags of the
// command itself.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOO_DRIVER_COMMANDLINE_H
#define BOO_TOOLS_BOO_DRIVER_COMMANDLINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace mlir::boo::harness {

/// boo-driver's command line in two: its own flags, for llvm::cl, and the
/// words of the MIOpenDriver command.
struct CommandLineParts {
  std::vector<const char *> driverArgs;
  std::vector<std::string> commandWords;
  std::deque<std::string> spelled; // stable storage for rewritten flags
};

/// Splits argv: boo-driver's flags (the `--` options of `category`,
/// anywhere) go to llvm::cl, the rest is the MIOpenDriver command (its first
/// word may be MIOpenDriver itself). Before the command's first word,
/// IREE BOO's -t N and --iter N are boo-driver's too; after it they are the
/// command's own, as MIOpenDriver spells them.
bool splitCommandLine(int argc, char **argv,
                      const llvm::cl::OptionCategory &category,
                      CommandLineParts &parts, std::string &error);

/// The benchmark flags of an MIOpenDriver command (the importer accepts and
/// ignores them): -t/--time, -i/--iter, -V/--verify; unset where the command
/// does not give them.
struct BenchmarkFlags {
  std::optional<bool> time;
  std::optional<int64_t> iterations;
  std::optional<bool> verify;
};

BenchmarkFlags readBenchmarkFlags(llvm::StringRef command);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOO_DRIVER_COMMANDLINE_H
