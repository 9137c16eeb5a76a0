//===- HIPSymbols.cpp - The HIP runtime, loaded with dlopen ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "HIPSymbols.h"
#include "Backend.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace boo::runtime;

#define BOO_HIP_SYMBOL_NAME(name, type) #name,
const char *const boo::runtime::kHIPSymbolNames[] = {
    BOO_HIP_SYMBOLS(BOO_HIP_SYMBOL_NAME)};
#undef BOO_HIP_SYMBOL_NAME
const size_t boo::runtime::kHIPSymbolCount =
    sizeof(kHIPSymbolNames) / sizeof(kHIPSymbolNames[0]);

/// Descriptions of the errors a missing or unusable GPU gives, for runtimes
/// (HIP 5) whose hipGetErrorString returns just the name.
static const char *getFallbackDescription(hipError_t error) {
  switch (error) {
  case hipErrorNoDevice:
    return "no ROCm-capable device is detected";
  case hipErrorInvalidDevice:
    return "invalid device ordinal";
  case hipErrorOutOfMemory:
    return "out of memory";
  case hipErrorInvalidValue:
    return "invalid argument";
  case hipErrorInvalidImage:
    return "device kernel image is invalid";
  case hipErrorNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case hipErrorNotFound:
    return "named symbol not found";
  case hipErrorLaunchFailure:
    return "unspecified launch failure";
  default:
    return nullptr;
  }
}

std::string HIPSymbols::describeError(hipError_t error) const {
  const char *name = hipGetErrorName ? hipGetErrorName(error) : nullptr;
  const char *text = hipGetErrorString ? hipGetErrorString(error) : nullptr;
  std::string result = name ? name : "hipError " + std::to_string(error);
  if (!text || !*text || (name && std::string(text) == name))
    text = getFallbackDescription(error);
  if (text)
    result += std::string(" (") + text + ")";
  return result;
}

namespace {

/// Resolves every symbol of `library`; on failure names the first missing.
boo_status_t resolveSymbols(HIPSymbols &symbols) {
#define BOO_HIP_RESOLVE_SYMBOL(name, type)                                     \
  dlerror();                                                                   \
  symbols.name = reinterpret_cast<type>(dlsym(symbols.library, #name));        \
  if (!symbols.name) {                                                         \
    const char *text = dlerror();                                              \
    return makeStatus(BOO_STATUS_UNAVAILABLE,                                  \
                      "HIP runtime " + symbols.libraryName +                   \
                          " lacks the symbol " #name +                         \
                          (text ? std::string(": ") + text : std::string()));  \
  }
  BOO_HIP_SYMBOLS(BOO_HIP_RESOLVE_SYMBOL)
#undef BOO_HIP_RESOLVE_SYMBOL
  return nullptr;
}

} // namespace

boo_status_t boo::runtime::loadHIPSymbols(const HIPSymbols *&symbols) {
  // Loaded libraries by name; never unloaded, since the HIP runtime does
  // not support being unloaded while its threads may run.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<HIPSymbols>> loaded;

  std::vector<std::string> candidates;
  const char *override = getenv("BOO_HIP_LIBRARY");
  bool overridden = override && *override;
  if (overridden)
    candidates.push_back(override);
  else
    candidates = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};

  std::lock_guard<std::mutex> lock(mutex);
  std::string errors;
  for (const std::string &name : candidates) {
    auto it = loaded.find(name);
    if (it != loaded.end()) {
      symbols = it->second.get();
      return nullptr;
    }
    dlerror();
    void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *text = dlerror();
      if (!errors.empty())
        errors += "; ";
      errors += text ? text : "unknown error";
      continue;
    }
    auto table = std::make_unique<HIPSymbols>();
    table->libraryName = name;
    table->library = library;
    if (boo_status_t status = resolveSymbols(*table)) {
      dlclose(library);
      return status;
    }
    symbols = table.get();
    loaded[name] = std::move(table);
    return nullptr;
  }
  if (overridden)
    return makeStatus(BOO_STATUS_UNAVAILABLE,
                      "no HIP runtime: cannot load " + candidates[0] +
                          " (set by BOO_HIP_LIBRARY): " + errors);
  return makeStatus(BOO_STATUS_UNAVAILABLE,
                    "no HIP runtime: cannot load libamdhip64.so (tried "
                    "libamdhip64.so, libamdhip64.so.6, libamdhip64.so.5: " +
                        errors +
                        "); install ROCm (or Debian's libamdhip64-5) or set "
                        "BOO_HIP_LIBRARY");
}
