//===- CPUBackend.cpp - Run CPU code objects in-process -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A CPU code object is an ELF shared object (docs/ModuleFormat.md). It is
// loaded from memory through a memfd (or, where memfd_create is refused, a
// temporary file deleted right after dlopen), its `__boo_parallel_for` is
// pointed at the device's thread pool, and each launch calls
// `void entry(void **args)` with one memref descriptor per argument.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "ThreadPool.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace boo::runtime;

namespace {

#if defined(__x86_64__)
constexpr const char *kHostArch = "x86_64";
#elif defined(__aarch64__)
constexpr const char *kHostArch = "aarch64";
#else
#error "the Boo CPU backend supports x86_64 and aarch64 hosts"
#endif

/// Whether the host has instruction-set feature `name`; `known` is false for
/// names this runtime cannot check.
bool hostHasFeature(const std::string &name, bool &known) {
  known = true;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (name == "sse4.2")
    return __builtin_cpu_supports("sse4.2");
  if (name == "avx")
    return __builtin_cpu_supports("avx");
  if (name == "avx2")
    return __builtin_cpu_supports("avx2");
  if (name == "fma")
    return __builtin_cpu_supports("fma");
  if (name == "avx512f")
    return __builtin_cpu_supports("avx512f");
#endif
  known = false;
  return false;
}

bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t written = write(fd, bytes.data() + done, bytes.size() - done);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    done += size_t(written);
  }
  return true;
}

/// Whether a library of this exact name is loaded (glibc reuses a loaded
/// library whose name matches, whatever file the name now refers to).
bool isLoadedByName(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return false;
  dlclose(handle);
  return true;
}

/// A shared object loaded from memory.
class CPUCodeObject {
public:
  ~CPUCodeObject() {
    if (handle)
      dlclose(handle);
    // Keep the memfd (and so its /proc/self/fd name) while the library may
    // still be mapped under that name, so no later load can collide with it.
    if (fd >= 0 && !isLoadedByName(path))
      close(fd);
  }

  static boo_status_t load(const std::string &bytes, size_t index,
                           std::unique_ptr<CPUCodeObject> &out);

  /// The address of `symbol` when the object itself defines it (not one of
  /// its dependencies), else null.
  void *lookup(const char *symbol) const {
    void *address = dlsym(handle, symbol);
    if (!address)
      return nullptr;
    Dl_info info;
    struct link_map *map = nullptr;
    if (dladdr(address, &info) == 0 ||
        dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !info.dli_fname ||
        strcmp(info.dli_fname, map->l_name) != 0)
      return nullptr;
    return address;
  }

private:
  void *handle = nullptr;
  int fd = -1;
  std::string path;
};

boo_status_t CPUCodeObject::load(const std::string &bytes, size_t index,
                                 std::unique_ptr<CPUCodeObject> &out) {
  std::string what = "code object " + std::to_string(index);
  auto object = std::make_unique<CPUCodeObject>();
  int fd = memfd_create("boo-code-object", MFD_CLOEXEC);
  bool viaMemfd = fd >= 0 && access("/proc/self/fd", X_OK) == 0;
  if (viaMemfd) {
    // A name still in use by a loaded library would make dlopen return
    // that library: move to a fresh descriptor number.
    std::vector<int> spare;
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    while (isLoadedByName(path) && spare.size() < 64) {
      spare.push_back(fd);
      fd = dup(fd);
      if (fd < 0)
        break;
      path = "/proc/self/fd/" + std::to_string(fd);
    }
    for (int other : spare)
      close(other);
    if (fd < 0)
      return makeStatus(BOO_STATUS_INTERNAL,
                        what + ": dup: " + std::string(strerror(errno)));
    object->fd = fd;
    object->path = path;
  } else {
    if (fd >= 0)
      close(fd);
    const char *directory = getenv("TMPDIR");
    std::string pattern =
        std::string(directory && *directory ? directory : "/tmp") +
        "/boo-code-object-XXXXXX";
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::vector<char> name(pattern.begin(), pattern.end());
      name.push_back('\0');
      fd = mkstemp(name.data());
      if (fd < 0)
        return makeStatus(BOO_STATUS_INTERNAL,
                          what + ": memfd_create and mkstemp(" + pattern +
                              ") failed: " + strerror(errno));
      object->path = name.data();
      if (!isLoadedByName(object->path))
        break;
      close(fd);
      fd = -1;
    }
    if (fd < 0)
      return makeStatus(BOO_STATUS_INTERNAL,
                        what + ": no unused temporary file name");
  }

  if (!writeAll(fd, bytes)) {
    std::string message =
        what + ": cannot write " + object->path + ": " + strerror(errno);
    if (!viaMemfd) {
      unlink(object->path.c_str());
      close(fd);
    }
    return makeStatus(BOO_STATUS_INTERNAL, message);
  }
  dlerror();
  object->handle = dlopen(object->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string dlopenError;
  if (!object->handle) {
    const char *text = dlerror();
    dlopenError = text ? text : "unknown error";
  }
  if (!viaMemfd) {
    unlink(object->path.c_str());
    close(fd);
  }
  if (!object->handle)
    return makeStatus(BOO_STATUS_INVALID_MODULE,
                      what +
                          " is not a loadable shared object: " + dlopenError);

  // Hand the object the device's dispatcher.
  if (void *slot = object->lookup(kParallelForSymbol)) {
    auto dispatcher = &dispatchParallelFor;
    memcpy(slot, &dispatcher, sizeof(dispatcher));
  }
  out = std::move(object);
  return nullptr;
}

using EntryFunction = void (*)(void **args);

class CPUExecutable : public Executable {
public:
  CPUExecutable(const ModuleDesc &module, ThreadPool &pool)
      : module(module), pool(pool) {}

  boo_status_t load(uint32_t targetIndex);
  boo_status_t invoke(size_t functionIndex, const FunctionImpl &impl,
                      void *const *inputs, void *const *results) override;

private:
  const ModuleDesc &module;
  ThreadPool &pool;
  /// Indexed by code object; null for those the target does not use.
  std::vector<std::unique_ptr<CPUCodeObject>> objects;
  /// Per function, the entry of each launch of its impl for the target.
  std::vector<std::vector<EntryFunction>> entries;
};

boo_status_t CPUExecutable::load(uint32_t targetIndex) {
  objects.resize(module.codeObjects.size());
  entries.resize(module.functions.size());
  for (size_t f = 0; f < module.functions.size(); ++f) {
    const FunctionDesc &function = module.functions[f];
    for (const FunctionImpl &impl : function.impls) {
      if (impl.target != targetIndex)
        continue;
      for (const Launch &launch : impl.launches) {
        std::unique_ptr<CPUCodeObject> &object = objects[launch.codeObject];
        if (!object) {
          if (boo_status_t status =
                  CPUCodeObject::load(module.codeObjects[launch.codeObject],
                                      launch.codeObject, object))
            return status;
        }
        void *entry = object->lookup(launch.kernel.c_str());
        if (!entry)
          return makeStatus(BOO_STATUS_INVALID_MODULE,
                            "@" + function.name + ": code object " +
                                std::to_string(launch.codeObject) +
                                " does not define the entry symbol '" +
                                launch.kernel + "'");
        entries[f].push_back(reinterpret_cast<EntryFunction>(entry));
      }
    }
  }
  return nullptr;
}

boo_status_t CPUExecutable::invoke(size_t functionIndex,
                                   const FunctionImpl &impl,
                                   void *const *inputs, void *const *results) {
  const FunctionDesc &function = module.functions[functionIndex];
  ScopedCurrentPool scope(&pool);
  for (size_t l = 0; l < impl.launches.size(); ++l) {
    const Launch &launch = impl.launches[l];
    // One memref descriptor per argument: {allocated, aligned, offset,
    // sizes[rank], strides[rank]} as 64-bit words.
    size_t words = 0;
    for (const LaunchArg &arg : launch.args) {
      const auto &tensors =
          arg.kind == ArgKind::Input ? function.inputs : function.results;
      words += 3 + 2 * tensors[arg.index].dims.size();
    }
    std::vector<int64_t> descriptors(words);
    std::vector<void *> args(launch.args.size());
    size_t next = 0;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg &arg = launch.args[i];
      bool isInput = arg.kind == ArgKind::Input;
      const TensorDesc &tensor =
          (isInput ? function.inputs : function.results)[arg.index];
      void *base = (isInput ? inputs : results)[arg.index];
      int64_t *descriptor = &descriptors[next];
      args[i] = descriptor;
      memcpy(&descriptor[0], &base, sizeof(base));
      memcpy(&descriptor[1], &base, sizeof(base));
      descriptor[2] = 0;
      size_t rank = tensor.dims.size();
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        descriptor[3 + d] = tensor.dims[d];
        descriptor[3 + rank + d] = stride;
        stride *= tensor.dims[d];
      }
      next += 3 + 2 * rank;
    }
    entries[functionIndex][l](args.data());
  }
  return nullptr;
}

class CPUEvent : public Event {
public:
  boo_status_t record() override {
    time = std::chrono::steady_clock::now();
    recorded = true;
    return nullptr;
  }
  boo_status_t getElapsedMs(const Event &end, double &ms) const override {
    const auto &other = static_cast<const CPUEvent &>(end);
    if (!recorded || !other.recorded)
      return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                        "elapsed time of an event that was never recorded");
    ms = std::chrono::duration<double, std::milli>(other.time - time).count();
    return nullptr;
  }

private:
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};

class CPUBackend : public Backend {
public:
  CPUBackend(const std::string &spec, unsigned threads) : pool(threads) {
    target = kHostArch;
    description = spec + " (" + target + ", " + std::to_string(threads) +
                  (threads == 1 ? " thread)" : " threads)");
  }

  TargetKind getTargetKind() const override { return TargetKind::CPU; }

  std::string checkTargetFeatures(const TargetDesc &desc) const override {
    const std::string &features = desc.features;
    for (size_t begin = 0; begin <= features.size();) {
      size_t end = features.find(',', begin);
      if (end == std::string::npos)
        end = features.size();
      std::string feature = features.substr(begin, end - begin);
      begin = end + 1;
      if (feature.empty())
        continue;
      bool known;
      bool present = hostHasFeature(feature, known);
      if (!known)
        return "the module's " + desc.name + " code needs CPU feature '" +
               feature + "', which this runtime cannot check";
      if (!present)
        return "the module's " + desc.name + " code needs CPU feature " +
               feature + ", which this host lacks";
    }
    return {};
  }

  boo_status_t synchronize() override { return nullptr; }

  boo_status_t allocate(size_t bytes, void *&pointer) override {
    // 64-byte aligned, rounded up so that vector loads of the last
    // elements stay inside the allocation.
    size_t rounded = bytes < 64 ? 64 : (bytes + 63) / 64 * 64;
    if (rounded < bytes || posix_memalign(&pointer, 64, rounded) != 0)
      return makeStatus(BOO_STATUS_OUT_OF_MEMORY, "cannot allocate " +
                                                      std::to_string(bytes) +
                                                      " bytes of host memory");
    return nullptr;
  }
  void deallocate(void *pointer) override { free(pointer); }

  boo_status_t copyToDevice(void *destination, const void *source,
                            size_t bytes) override {
    if (bytes)
      memcpy(destination, source, bytes);
    return nullptr;
  }
  boo_status_t copyFromDevice(void *destination, const void *source,
                              size_t bytes) override {
    if (bytes)
      memcpy(destination, source, bytes);
    return nullptr;
  }

  boo_status_t load(const ModuleDesc &module, uint32_t targetIndex,
                    std::unique_ptr<Executable> &executable) override {
    auto loaded = std::make_unique<CPUExecutable>(module, pool);
    if (boo_status_t status = loaded->load(targetIndex))
      return status;
    executable = std::move(loaded);
    return nullptr;
  }

  boo_status_t createEvent(std::unique_ptr<Event> &event) override {
    event = std::make_unique<CPUEvent>();
    return nullptr;
  }

private:
  ThreadPool pool;
};

} // namespace

boo_status_t boo::runtime::openCPUBackend(const std::string &spec,
                                          unsigned threads,
                                          std::unique_ptr<Backend> &backend) {
  backend = std::make_unique<CPUBackend>(spec, threads);
  return nullptr;
}
