//===- KernelCache.h - Persistent on-disk kernel cache ----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A persistent, process-safe cache of compiled kernels (or any bytes) keyed
// by a BLAKE3 digest of everything that determines the compiled result.
// Many processes may share one cache directory: entries are written to a
// unique temporary file and renamed into place, so a reader sees either no
// entry or a complete one, and every entry carries a checksum so that a torn
// or damaged file (a crash, a full disk, a stray edit) is detected, removed
// and reported instead of being handed to the runtime.
//
// Layout: <directory>/<first 2 hex digits of the key>/<key>.bookc
//
// Entry file format, version 1 (all integers little-endian):
//
//   offset  size  field
//   0       8     magic "BOOKC\0\0" followed by the format version byte (1)
//   8       8     u64 payload size in bytes
//   16      32    BLAKE3 digest of the payload
//   48      4     u32 key length
//   52      n     key bytes (must equal the key the entry is looked up with)
//   52+n    ...   payload
//
// The file's size must be exactly 52 + n + payload size.
//
// Recency for eviction is the entry file's modification time: a hit sets it
// to now, and eviction removes the entries with the oldest times first.
//
// This header depends on LLVM Support only, so that tools and runtimes that
// do not link MLIR can use the cache.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CACHE_KERNELCACHE_H
#define BOO_CACHE_KERNELCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"

#include <cstdint>
#include <string>

namespace mlir::boo {

struct KernelCacheOptions {
  /// A disabled cache misses every lookup and stores nothing.
  bool enabled = true;
  /// The cache root; created on the first store.
  std::string directory;
  /// Limit on the total size of all entry files; 0 means unlimited.
  uint64_t maxBytes = 4ull << 30;

  /// Reads the options from the environment:
  ///   BOO_CACHE_ON         "0" or "1" (default 1)
  ///   BOO_CACHE_DIR        the cache root (default $XDG_CACHE_HOME/boo, else
  ///                        $HOME/.cache/boo)
  ///   BOO_CACHE_MAX_BYTES  a byte count, optionally with a K, M or G suffix
  ///                        (powers of 1024); 0 means unlimited (default 4G)
  /// A variable set to the empty string counts as unset. On a malformed value
  /// returns false and sets `error` to a message naming the variable and the
  /// value; `options` is then unspecified.
  static bool fromEnvironment(KernelCacheOptions &options, std::string &error);
};

/// Builds a cache key from named fields: BLAKE3 over the length-prefixed
/// names and values, in the order they are added, printed as 64 lowercase hex
/// digits. Equal field sequences give equal keys; changing any name or value,
/// or moving bytes between adjacent fields ("ab","c" vs "a","bc"), changes it.
/// Put everything that affects the compiled bytes in the key: the compiler's
/// version, the target, the options and the input IR.
class KernelCacheKey {
public:
  KernelCacheKey();

  void add(llvm::StringRef name, llvm::StringRef value);
  std::string str() const;

private:
  llvm::BLAKE3 hasher;
};

class KernelCache {
public:
  explicit KernelCache(KernelCacheOptions options);

  enum class LookupStatus {
    /// `bytes` holds the verified payload.
    Hit,
    /// No entry, a disabled cache, or an entry that could not be read; in the
    /// last case `error` says why (otherwise it is empty).
    Miss,
    /// The entry failed a check and has been removed; `error` says why.
    Corrupt,
  };

  /// Looks up `key` (2 to 128 lowercase hex digits, as KernelCacheKey::str()
  /// gives). On a hit the payload has been verified against the magic, the
  /// format version, the stored key, the size and the checksum, and the
  /// entry's modification time is set to now (LRU).
  LookupStatus lookup(llvm::StringRef key, std::string &bytes,
                      std::string &error);

  /// Stores `bytes` under `key`, replacing any previous entry atomically
  /// (temporary file + rename, safe with concurrent readers and writers in
  /// other processes). Then evicts the least recently used entries until the
  /// total is at most maxBytes, never the entry just written, and removes
  /// temporary files older than an hour left by crashed writers. Returns
  /// false and sets `error` on an I/O failure; a disabled cache stores
  /// nothing and returns true.
  bool store(llvm::StringRef key, llvm::StringRef bytes, std::string &error);

  /// <directory>/<first 2 hex digits of key>/<key>.bookc
  std::string getEntryPath(llvm::StringRef key) const;

  struct Usage {
    uint64_t entries = 0;
    /// The total size of the entry files, headers included.
    uint64_t bytes = 0;
  };
  /// Walks the directory (also when the cache is disabled).
  Usage getUsage() const;

  /// Removes every entry (also when the cache is disabled). Temporary files
  /// of writers in flight are left alone.
  bool clear(std::string &error);

  const KernelCacheOptions &getOptions() const { return options; }

private:
  KernelCacheOptions options;
};

} // namespace mlir::boo

#endif // BOO_CACHE_KERNELCACHE_H
