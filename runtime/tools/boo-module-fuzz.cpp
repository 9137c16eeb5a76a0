//===- boo-module-fuzz.cpp - Feed damaged modules to the runtime ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-module-fuzz FILE [--flips=N] [--seed=S] [--manifest-flips=M]
//
// Checks that FILE loads on the "cpu" device, then that every truncation of
// it is rejected and that N copies with one random byte flipped are either
// rejected or, if one loads, run with zero-filled inputs without crashing.
// Prints
//   truncations: 1234 rejected, flips: 5000 rejected, 0 loaded
// and exits with 1 when a truncation loads or anything else unexpected
// happens.
//
// The checksum rejects almost every flip before the manifest is read, so
// M more flips land in the manifest with the checksum recomputed: they
// reach the manifest reader, which must reject them or load a module
// (never run: its shapes may no longer match its code).
//
// Built a second time with AddressSanitizer and UBSan
// (boo-module-fuzz-asan), it shows that the reader never reads out of
// bounds or trusts a count.
//
//===----------------------------------------------------------------------===//

#include "boo/ModuleFormat.h"
#include "boo_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

/// Tensors larger than this are not allocated when running a damaged module
/// that loaded.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 30;

/// Prints and frees `status`; returns whether it was OK.
bool report(boo_status_t status, const char *what) {
  if (!status)
    return true;
  fprintf(stderr, "boo-module-fuzz: %s: %s: %s\n", what,
          boo_status_code_name(boo_status_code(status)),
          boo_status_message(status));
  boo_status_free(status);
  return false;
}

bool tensorBytes(const boo_tensor_info_t &info, uint64_t &bytes) {
  bytes = boo_dtype_size(info.dtype);
  for (size_t i = 0; i < info.rank; ++i)
    if (info.dims[i] < 0 ||
        __builtin_mul_overflow(bytes, uint64_t(info.dims[i]), &bytes))
      return false;
  return bytes <= kMaxTensorBytes;
}

/// Runs every function of `module` on zero-filled inputs. Failures are
/// statuses, which a damaged module may well produce; returns false only
/// when `strict` and something failed.
bool invokeAll(boo_device_t *device, boo_module_t *module, bool strict) {
  bool ok = true;
  for (size_t f = 0; f < boo_module_function_count(module); ++f) {
    boo_function_t *function = nullptr;
    boo_status_t status = boo_module_lookup_function(
        module, boo_module_function_name(module, f), &function);
    if (status) {
      // A function without code for this target is not an error.
      bool incompatible = boo_status_code(status) == BOO_STATUS_INCOMPATIBLE;
      boo_status_free(status);
      ok &= incompatible || !strict;
      continue;
    }
    std::vector<boo_buffer_t *> inputs, results;
    bool allocated = true;
    auto allocate = [&](std::vector<boo_buffer_t *> &buffers, size_t count,
                        bool isInput) {
      for (size_t i = 0; i < count && allocated; ++i) {
        boo_tensor_info_t info;
        uint64_t bytes = 0;
        boo_status_t status = isInput ? boo_function_input(function, i, &info)
                                      : boo_function_result(function, i, &info);
        if (status || !tensorBytes(info, bytes)) {
          boo_status_free(status);
          allocated = false;
          break;
        }
        boo_buffer_t *buffer = nullptr;
        if (!report(boo_buffer_allocate(device, bytes, &buffer), "allocate")) {
          allocated = false;
          break;
        }
        buffers.push_back(buffer);
        std::vector<char> zeros(bytes, 0);
        allocated = report(
            boo_buffer_write(buffer, 0, zeros.data(), zeros.size()), "write");
      }
    };
    allocate(inputs, boo_function_input_count(function), true);
    allocate(results, boo_function_result_count(function), false);
    if (allocated) {
      ok &= report(boo_function_invoke(function, inputs.data(), inputs.size(),
                                       results.data(), results.size()),
                   boo_function_name(function)) ||
            !strict;
      ok &= report(boo_device_synchronize(device), "synchronize") || !strict;
    } else {
      ok &= !strict;
    }
    for (boo_buffer_t *buffer : inputs)
      boo_buffer_free(buffer);
    for (boo_buffer_t *buffer : results)
      boo_buffer_free(buffer);
  }
  return ok;
}

/// Loads `size` bytes, which are copied to an allocation of exactly that
/// size so that AddressSanitizer sees any read past them.
bool tryLoad(boo_device_t *device, const char *data, size_t size,
             boo_module_t *&module) {
  std::vector<char> exact(data, data + size);
  boo_status_t status =
      boo_module_load_data(device, exact.data(), exact.size(), &module);
  if (!status)
    return true;
  if (!*boo_status_message(status)) {
    fprintf(stderr, "boo-module-fuzz: a rejection without a message\n");
    std::abort();
  }
  boo_status_free(status);
  module = nullptr;
  return false;
}

bool parseFlag(const char *arg, const char *name, unsigned long long &value) {
  size_t length = strlen(name);
  if (strncmp(arg, name, length) != 0)
    return false;
  char *end = nullptr;
  value = strtoull(arg + length, &end, 10);
  if (!*(arg + length) || *end) {
    fprintf(stderr, "boo-module-fuzz: bad value in %s\n", arg);
    exit(2);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  const char *path = nullptr;
  unsigned long long flips = 5000, seed = 1, manifestFlips = 0;
  const char *usage = "usage: boo-module-fuzz FILE [--flips=N] [--seed=S] "
                      "[--manifest-flips=M]\n";
  for (int i = 1; i < argc; ++i) {
    if (parseFlag(argv[i], "--flips=", flips) ||
        parseFlag(argv[i], "--seed=", seed) ||
        parseFlag(argv[i], "--manifest-flips=", manifestFlips))
      continue;
    if (argv[i][0] == '-' || path) {
      fputs(usage, stderr);
      return 2;
    }
    path = argv[i];
  }
  if (!path) {
    fputs(usage, stderr);
    return 2;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    fprintf(stderr, "boo-module-fuzz: cannot open %s\n", path);
    return 2;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());

  boo_device_t *device = nullptr;
  if (!report(boo_device_open("cpu", &device), "cpu"))
    return 1;
  boo_module_t *module = nullptr;
  if (!report(boo_module_load_data(device, bytes.data(), bytes.size(), &module),
              path)) {
    boo_device_close(device);
    return 1;
  }
  bool ok = invokeAll(device, module, /*strict=*/true);
  boo_module_free(module);
  printf("boo-module-fuzz: %s (%zu bytes) loads on %s; seed %llu\n", path,
         bytes.size(), boo_device_description(device), seed);

  // Truncations: only the first and last pages are copied to exact-size
  // allocations; in between the reader stops at the header's file size, so
  // a prefix of the original is as good and keeps this linear.
  size_t truncationsRejected = 0, truncationsLoaded = 0;
  for (size_t length = 0; length < bytes.size(); ++length) {
    bool exact = length < 4096 || bytes.size() - length <= 4096;
    boo_status_t status = nullptr;
    bool loaded;
    if (exact) {
      loaded = tryLoad(device, bytes.data(), length, module);
    } else {
      status = boo_module_load_data(device, bytes.data(), length, &module);
      loaded = !status;
      boo_status_free(status);
    }
    if (loaded) {
      fprintf(stderr, "boo-module-fuzz: the first %zu bytes loaded\n", length);
      ++truncationsLoaded;
      boo_module_free(module);
    } else {
      ++truncationsRejected;
    }
  }

  size_t flipsRejected = 0, flipsLoaded = 0;
  std::mt19937_64 random(seed);
  std::string damaged = bytes;
  for (unsigned long long i = 0; i < flips && !bytes.empty(); ++i) {
    size_t offset = random() % bytes.size();
    char mask = static_cast<char>(1 + random() % 255);
    damaged[offset] ^= mask;
    if (tryLoad(device, damaged.data(), damaged.size(), module)) {
      ++flipsLoaded;
      printf("boo-module-fuzz: flip %llu (offset %zu ^ 0x%02x) loaded\n", i,
             offset, unsigned(static_cast<unsigned char>(mask)));
      invokeAll(device, module, /*strict=*/false);
      boo_module_free(module);
    } else {
      ++flipsRejected;
    }
    damaged[offset] = bytes[offset];
  }

  // Flips inside the manifest with a valid checksum. The module loaded, so
  // its header and section table are sound.
  size_t manifestRejected = 0, manifestLoaded = 0;
  uint64_t manifestOffset = 0, manifestSize = 0;
  memcpy(&manifestOffset, bytes.data() + 40, 8);
  memcpy(&manifestSize, bytes.data() + 48, 8);
  for (unsigned long long i = 0; i < manifestFlips; ++i) {
    size_t offset = manifestOffset + random() % manifestSize;
    char mask = static_cast<char>(1 + random() % 255);
    damaged[offset] ^= mask;
    uint32_t crc =
        boo::runtime::crc32(damaged.data() + 32, damaged.size() - 32);
    memcpy(&damaged[24], &crc, 4);
    if (tryLoad(device, damaged.data(), damaged.size(), module)) {
      ++manifestLoaded;
      boo_module_free(module);
    } else {
      ++manifestRejected;
    }
    damaged[offset] = bytes[offset];
    memcpy(&damaged[24], bytes.data() + 24, 4);
  }
  boo_device_close(device);

  printf("truncations: %zu rejected, flips: %zu rejected, %zu loaded\n",
         truncationsRejected, flipsRejected, flipsLoaded);
  if (manifestFlips)
    printf("manifest flips with a valid checksum: %zu rejected, %zu loaded\n",
           manifestRejected, manifestLoaded);
  return ok && truncationsLoaded == 0 ? 0 : 1;
}
