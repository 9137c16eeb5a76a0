//===- KernelCache.cpp - Persistent on-disk cache of compiled kernels -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Cache/KernelCache.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

using namespace mlir::boo;
using llvm::StringRef;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

// The entry file format is documented in KernelCache.h.
constexpr char kMagic[8] = {'B', 'O', 'O', 'K', 'C', '\0', '\0', '\1'};
constexpr size_t kVersionOffset = 7;
constexpr size_t kSizeOffset = 8;
constexpr size_t kChecksumOffset = 16;
constexpr size_t kChecksumSize = 32;
constexpr size_t kKeyLengthOffset = 48;
constexpr size_t kFixedHeaderSize = 52;

constexpr StringRef kEntrySuffix = ".bookc";
/// Temporary files are "<key>.bookc.tmp<random>" next to the entry, so the
/// rename stays within one directory (and one file system).
constexpr StringRef kTempMarker = ".bookc.tmp";
/// A writer holds its temporary file for the time it takes to write one
/// entry; one an hour old belongs to a writer that died.
constexpr std::chrono::hours kStaleTempAge(1);
constexpr size_t kMaxKeyLength = 128;

/// Keys become file and directory names, so they are restricted to what
/// KernelCacheKey produces; this also rules out "..", "/" and the like.
bool isValidKey(StringRef key) {
  return key.size() >= 2 && key.size() <= kMaxKeyLength &&
         llvm::all_of(key, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}

std::string getInvalidKeyMessage(StringRef key) {
  return llvm::formatv("invalid cache key '{0}': expected 2 to {1} lowercase "
                       "hex digits",
                       key, kMaxKeyLength)
      .str();
}

bool isShardName(StringRef name) {
  return name.size() == 2 && isValidKey(name);
}

llvm::sys::TimePoint<> now() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now());
}

struct CacheFile {
  std::string path;
  uint64_t size;
  llvm::sys::TimePoint<> modified;
};

/// Lists the entry files (and, if `temps` is given, the temporary files) in
/// the shard directories under `root`. Files that vanish while we walk (other
/// processes evict and rename concurrently) are skipped.
void listCacheFiles(StringRef root, std::vector<CacheFile> &entries,
                    std::vector<CacheFile> *temps) {
  std::error_code ec;
  for (fs::directory_iterator shard(root, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    if (shard->type() != fs::file_type::directory_file ||
        !isShardName(path::filename(shard->path())))
      continue;
    std::error_code shardEc;
    for (fs::directory_iterator file(shard->path(), shardEc);
         !shardEc && file != end; file.increment(shardEc)) {
      StringRef name = path::filename(file->path());
      bool isEntry = name.ends_with(kEntrySuffix);
      bool isTemp = !isEntry && name.contains(kTempMarker);
      if (!isEntry && !(isTemp && temps))
        continue;
      llvm::ErrorOr<fs::basic_file_status> status = file->status();
      if (!status || status->type() != fs::file_type::regular_file)
        continue;
      CacheFile cacheFile{file->path(), status->getSize(),
                          status->getLastModificationTime()};
      (isEntry ? entries : *temps).push_back(std::move(cacheFile));
    }
  }
}

/// Parses a byte count with an optional K, M or G suffix (powers of 1024).
std::optional<uint64_t> parseByteCount(StringRef text) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (llvm::toLower(text.back())) {
    case 'k':
      shift = 10;
      break;
    case 'm':
      shift = 20;
      break;
    case 'g':
      shift = 30;
      break;
    default:
      break;
    }
    if (shift)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.getAsInteger(10, value) ||
      value > (std::numeric_limits<uint64_t>::max() >> shift))
    return std::nullopt;
  return value << shift;
}

/// Why `buffer` is not a valid entry for `key`, or "" if it is.
std::string checkEntry(StringRef buffer, StringRef key) {
  uint64_t fileSize = buffer.size();
  if (fileSize < kFixedHeaderSize)
    return llvm::formatv("truncated: {0} of at least {1} bytes", fileSize,
                         kFixedHeaderSize);
  const char *data = buffer.data();
  if (StringRef(data, kVersionOffset) != StringRef(kMagic, kVersionOffset))
    return "bad magic (not a Boo cache entry)";
  uint8_t version = data[kVersionOffset];
  if (version != static_cast<uint8_t>(kMagic[kVersionOffset]))
    return llvm::formatv("unsupported format version {0} (expected {1})",
                         version, static_cast<int>(kMagic[kVersionOffset]));
  uint64_t payloadSize = llvm::support::endian::read64le(data + kSizeOffset);
  uint32_t keyLength = llvm::support::endian::read32le(data + kKeyLengthOffset);
  uint64_t headerSize = kFixedHeaderSize + uint64_t(keyLength);
  uint64_t expectedSize = llvm::SaturatingAdd(headerSize, payloadSize);
  if (fileSize < expectedSize)
    return llvm::formatv("truncated: {0} of {1} bytes", fileSize, expectedSize);
  StringRef storedKey = buffer.substr(kFixedHeaderSize, keyLength);
  if (storedKey != key) {
    if (isValidKey(storedKey))
      return llvm::formatv("key mismatch: the entry holds key {0}", storedKey);
    return "key mismatch";
  }
  if (fileSize > expectedSize)
    return llvm::formatv("{0} trailing bytes after the payload",
                         fileSize - expectedSize);
  StringRef payload = buffer.substr(headerSize);
  llvm::BLAKE3Result<> checksum =
      llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(payload));
  if (StringRef(data + kChecksumOffset, kChecksumSize) !=
      llvm::toStringRef(llvm::ArrayRef<uint8_t>(checksum)))
    return "checksum mismatch";
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// KernelCacheOptions
//===----------------------------------------------------------------------===//

bool KernelCacheOptions::fromEnvironment(KernelCacheOptions &options,
                                         std::string &error) {
  auto getEnv = [](StringRef name) -> std::optional<std::string> {
    std::optional<std::string> value = llvm::sys::Process::GetEnv(name);
    if (value && value->empty())
      return std::nullopt;
    return value;
  };
  options = KernelCacheOptions();

  if (std::optional<std::string> on = getEnv("BOO_CACHE_ON")) {
    if (*on != "0" && *on != "1") {
      error = "BOO_CACHE_ON='" + *on + "': expected 0 or 1";
      return false;
    }
    options.enabled = *on == "1";
  }

  if (std::optional<std::string> maxBytes = getEnv("BOO_CACHE_MAX_BYTES")) {
    std::optional<uint64_t> parsed = parseByteCount(*maxBytes);
    if (!parsed) {
      error = "BOO_CACHE_MAX_BYTES='" + *maxBytes +
              "': expected a byte count such as 1048576, 512K, 10M or 4G "
              "(0: unlimited)";
      return false;
    }
    options.maxBytes = *parsed;
  }

  if (std::optional<std::string> dir = getEnv("BOO_CACHE_DIR")) {
    options.directory = *dir;
    return true;
  }
  // XDG base directory specification: a relative XDG_CACHE_HOME is invalid
  // and must be ignored.
  llvm::SmallString<256> directory;
  std::optional<std::string> xdg = getEnv("XDG_CACHE_HOME");
  if (xdg && path::is_absolute(*xdg)) {
    directory = *xdg;
  } else if (path::home_directory(directory)) {
    path::append(directory, ".cache");
  } else {
    // A disabled cache needs no directory.
    if (!options.enabled)
      return true;
    error = "cannot find a cache directory (XDG_CACHE_HOME and HOME are "
            "unset): set BOO_CACHE_DIR or BOO_CACHE_ON=0";
    return false;
  }
  path::append(directory, "boo");
  options.directory = std::string(directory);
  return true;
}

//===----------------------------------------------------------------------===//
// KernelCacheKey
//===----------------------------------------------------------------------===//

KernelCacheKey::KernelCacheKey() {
  // Keeps these keys apart from BLAKE3 digests of anything else.
  hasher.update(StringRef("boo-kernel-cache-key-v1"));
}

void KernelCacheKey::add(StringRef name, StringRef value) {
  // The lengths make the encoding injective: ("ab", "c") and ("a", "bc")
  // hash different bytes.
  for (StringRef part : {name, value}) {
    char length[8];
    llvm::support::endian::write64le(length, part.size());
    hasher.update(StringRef(length, sizeof(length)));
    hasher.update(part);
  }
}

std::string KernelCacheKey::str() const {
  // BLAKE3::final does not change the state but is not const.
  llvm::BLAKE3 copy = hasher;
  return llvm::toHex(copy.final(), /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

KernelCache::KernelCache(KernelCacheOptions options)
    : options(std::move(options)) {}

std::string KernelCache::getEntryPath(StringRef key) const {
  llvm::SmallString<256> result(options.directory);
  path::append(result, key.take_front(2), key + kEntrySuffix);
  return std::string(result);
}

KernelCache::LookupStatus KernelCache::lookup(StringRef key, std::string &bytes,
                                              std::string &error) {
  error.clear();
  if (!options.enabled || options.directory.empty())
    return LookupStatus::Miss;
  if (!isValidKey(key)) {
    error = getInvalidKeyMessage(key);
    return LookupStatus::Miss;
  }
  std::string entryPath = getEntryPath(key);
  llvm::Expected<fs::file_t> file = fs::openNativeFileForRead(entryPath);
  if (!file) {
    std::error_code ec = llvm::errorToErrorCode(file.takeError());
    if (ec != std::errc::no_such_file_or_directory)
      error = entryPath + ": " + ec.message();
    return LookupStatus::Miss;
  }
  llvm::scope_exit closeOnExit([&] { fs::closeFile(*file); });

  // Volatile: read() the file instead of mapping it. A mapping would fault
  // (SIGBUS) if someone truncated the file under us; renames by other writers
  // are harmless either way since we hold the old inode open.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(*file, entryPath, /*FileSize=*/-1,
                                      /*RequiresNullTerminator=*/false,
                                      /*IsVolatile=*/true);
  if (!buffer) {
    error = entryPath + ": " + buffer.getError().message();
    return LookupStatus::Miss;
  }

  StringRef contents = (*buffer)->getBuffer();
  std::string problem = checkEntry(contents, key);
  if (problem.empty()) {
    uint64_t payloadOffset = kFixedHeaderSize + key.size();
    bytes.assign(contents.data() + payloadOffset,
                 contents.size() - payloadOffset);
    // Recency for LRU eviction. Failing to touch (a read-only shared cache)
    // does not make the payload any less valid.
    (void)fs::setLastAccessAndModificationTime(*file, now());
    return LookupStatus::Hit;
  }

  error = entryPath + ": " + problem;
  // Remove the file only if it is still the one we read: another process may
  // have renamed a good entry into place meanwhile.
  fs::file_status readStatus;
  fs::UniqueID currentId;
  if (!fs::status(*file, readStatus) &&
      !fs::getUniqueID(entryPath, currentId) &&
      readStatus.getUniqueID() == currentId) {
    if (std::error_code ec = fs::remove(entryPath))
      error += " (could not remove it: " + ec.message() + ")";
  }
  return LookupStatus::Corrupt;
}

bool KernelCache::store(StringRef key, StringRef bytes, std::string &error) {
  if (!options.enabled)
    return true;
  if (options.directory.empty()) {
    error = "the kernel cache has no directory";
    return false;
  }
  if (!isValidKey(key)) {
    error = getInvalidKeyMessage(key);
    return false;
  }
  std::string entryPath = getEntryPath(key);
  StringRef shardDir = path::parent_path(entryPath);
  if (std::error_code ec = fs::create_directories(shardDir)) {
    error = "cannot create " + shardDir.str() + ": " + ec.message();
    return false;
  }

  char header[kFixedHeaderSize];
  memcpy(header, kMagic, sizeof(kMagic));
  llvm::support::endian::write64le(header + kSizeOffset, bytes.size());
  llvm::BLAKE3Result<> checksum =
      llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(bytes));
  memcpy(header + kChecksumOffset, checksum.data(), kChecksumSize);
  llvm::support::endian::write32le(header + kKeyLengthOffset, key.size());

  int fd;
  llvm::SmallString<256> tempPath;
  if (std::error_code ec = fs::createUniqueFile(
          llvm::Twine(entryPath) + kTempMarker + "%%%%%%%%%%%%", fd,
          tempPath)) {
    error = "cannot create a temporary file next to " + entryPath + ": " +
            ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << StringRef(header, sizeof(header)) << key << bytes;
    os.close();
    if (os.has_error()) {
      error =
          "cannot write " + tempPath.str().str() + ": " + os.error().message();
      os.clear_error();
      (void)fs::remove(tempPath);
      return false;
    }
  }
  // rename() replaces the entry atomically: concurrent readers open either
  // the old complete file or the new complete one.
  if (std::error_code ec = fs::rename(tempPath, entryPath)) {
    error = "cannot rename " + tempPath.str().str() + " to " + entryPath +
            ": " + ec.message();
    (void)fs::remove(tempPath);
    return false;
  }

  // Housekeeping walks every shard, which costs a stat per entry; a store
  // follows a compilation, which costs far more.
  std::vector<CacheFile> entries, temps;
  listCacheFiles(options.directory, entries, &temps);
  llvm::sys::TimePoint<> staleBefore = now() - kStaleTempAge;
  for (const CacheFile &temp : temps)
    if (temp.modified < staleBefore)
      (void)fs::remove(temp.path);

  if (options.maxBytes == 0)
    return true;
  uint64_t total = 0;
  for (const CacheFile &entry : entries)
    total += entry.size;
  if (total <= options.maxBytes)
    return true;
  llvm::sort(entries, [](const CacheFile &a, const CacheFile &b) {
    return a.modified < b.modified;
  });
  for (const CacheFile &entry : entries) {
    if (total <= options.maxBytes)
      break;
    if (entry.path == entryPath)
      continue;
    // Another process may have evicted it already; either way it is gone.
    (void)fs::remove(entry.path);
    total -= entry.size;
  }
  return true;
}

KernelCache::Usage KernelCache::getUsage() const {
  Usage usage;
  if (options.directory.empty())
    return usage;
  std::vector<CacheFile> entries;
  listCacheFiles(options.directory, entries, /*temps=*/nullptr);
  usage.entries = entries.size();
  for (const CacheFile &entry : entries)
    usage.bytes += entry.size;
  return usage;
}

bool KernelCache::clear(std::string &error) {
  if (options.directory.empty())
    return true;
  std::vector<CacheFile> entries;
  listCacheFiles(options.directory, entries, /*temps=*/nullptr);
  bool ok = true;
  for (const CacheFile &entry : entries) {
    if (std::error_code ec = fs::remove(entry.path)) {
      if (ok)
        error = "cannot remove " + entry.path + ": " + ec.message();
      ok = false;
    }
  }
  return ok;
}
