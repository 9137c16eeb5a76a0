//===- CommandLine.cpp - boo-driver's command line ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::boo::harness;

namespace {

/// Whether `arg` is one of boo-driver's own flags (the options of
/// `category`, and --help/--version): everything else on its command
/// line belongs to the MIOpenDriver command. `takesValue`: the next word is
/// the flag's value.
bool isDriverFlag(llvm::StringRef arg, const llvm::cl::OptionCategory &category,
                  bool &takesValue) {
  if (!arg.starts_with("--"))
    return false;
  llvm::StringRef name = arg.drop_front(2).split('=').first;
  if (name == "help" || name == "help-hidden" || name == "version") {
    takesValue = false;
    return true;
  }
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end() ||
      !llvm::is_contained(it->second->Categories, &category))
    return false;
  takesValue = !arg.contains('=') &&
               it->second->getValueExpectedFlag() == llvm::cl::ValueRequired;
  return true;
}

/// Passes `flag` with the value `value` (0 or 1) to llvm::cl as
/// "--<name>=<value>": MIOpenDriver's and IREE BOO's "-t 1", "--time 1",
/// "--verify 1" spellings. False, with `error` naming the flag, for another
/// number.
bool spellBooleanFlag(llvm::StringRef flag, llvm::StringRef name,
                      llvm::StringRef value, CommandLineParts &parts,
                      std::string &error) {
  if (value != "0" && value != "1") {
    error = flag.str() + (value.empty() ? "" : " " + value.str()) +
            ": expected 0 or 1";
    return false;
  }
  parts.spelled.push_back("--" + name.str() + "=" + value.str());
  parts.driverArgs.push_back(parts.spelled.back().c_str());
  return true;
}

} // namespace

bool mlir::boo::harness::splitCommandLine(
    int argc, char **argv, const llvm::cl::OptionCategory &category,
    CommandLineParts &parts, std::string &error) {
  parts.driverArgs = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    llvm::StringRef next = i + 1 < argc ? argv[i + 1] : "";
    bool beforeCommand = parts.commandWords.empty();
    if (beforeCommand && arg == "-t") {
      if (!spellBooleanFlag(arg, "time", next, parts, error))
        return false;
      ++i;
      continue;
    }
    bool takesValue = false;
    bool commandsIter = !beforeCommand && arg.split('=').first == "--iter";
    if (commandsIter || !isDriverFlag(arg, category, takesValue)) {
      parts.commandWords.push_back(argv[i]);
      continue;
    }
    // "--time 1", "--verify 0": a number after a 0/1 flag is its value.
    int64_t number;
    if ((arg == "--time" || arg == "--verify" || arg == "--verify-numerics") &&
        !next.getAsInteger(10, number)) {
      if (!spellBooleanFlag(arg, arg.drop_front(2), next, parts, error))
        return false;
      ++i;
      continue;
    }
    parts.driverArgs.push_back(argv[i]);
    if (takesValue && i + 1 < argc)
      parts.driverArgs.push_back(argv[++i]);
  }
  return true;
}

BenchmarkFlags mlir::boo::harness::readBenchmarkFlags(llvm::StringRef command) {
  BenchmarkFlags flags;
  llvm::SmallVector<llvm::StringRef> tokens;
  llvm::SplitString(command, tokens);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    llvm::StringRef flag = tokens[i], value = tokens[i + 1];
    int64_t number;
    if (value.getAsInteger(10, number))
      continue;
    if (flag == "-t" || flag == "--time")
      flags.time = number != 0;
    else if (flag == "-i" || flag == "--iter")
      flags.iterations = number;
    else if (flag == "-V" || flag == "--verify")
      flags.verify = number != 0;
  }
  return flags;
}
