//===- CommandList.h - MIOpenDriver command files ---------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_COMMANDLIST_H
#define BOO_HARNESS_COMMANDLIST_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo::harness {

/// One command of a commands file.
struct CommandLine {
  std::string command; // normalized (normalizeCommand)
  int64_t lineNumber = 0;
};

/// The words of `command`, single-spaced, without a leading MIOpenDriver
/// executable (`MIOpenDriver`, `./bin/MIOpenDriver`, any path to it), as
/// MIOpen's perf_models lists and logs write them.
std::string normalizeCommand(llvm::StringRef command);

/// Reads one command per line; blank lines and lines whose first non-blank
/// character is '#' are skipped, as is a trailing '\r'. False, with `error`
/// naming the file, if it cannot be read or holds no command.
bool readCommandsFile(llvm::StringRef path, std::vector<CommandLine> &commands,
                      std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_COMMANDLIST_H
