//===- CommandList.cpp - MIOpenDriver command files
//------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CommandList.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir::boo;

std::string harness::normalizeCommand(llvm::StringRef command) {
  llvm::SmallVector<llvm::StringRef> words;
  llvm::SplitString(command, words);
  if (!words.empty() &&
      llvm::sys::path::filename(words.front()) == "MIOpenDriver")
    words.erase(words.begin());
  return llvm::join(words, " ");
}

bool harness::readCommandsFile(llvm::StringRef path,
                               std::vector<CommandLine> &commands,
                               std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read commands file '" + path.str() +
            "': " + buffer.getError().message();
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, line] : llvm::enumerate(lines)) {
    llvm::StringRef text = line.trim();
    if (text.empty() || text.starts_with("#"))
      continue;
    std::string command = normalizeCommand(text);
    if (command.empty())
      continue;
    commands.push_back({command, static_cast<int64_t>(index) + 1});
  }
  if (commands.empty()) {
    error = "commands file '" + path.str() + "' holds no command";
    return false;
  }
  return true;
}
