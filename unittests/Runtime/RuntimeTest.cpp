//===- RuntimeTest.cpp - The boo_runtime.h C API --------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Tests libboo_runtime.so through its C API: statuses, device specs,
// buffers, HIP availability messages, and CPU modules whose code is the
// hand-written shared object of Inputs/add_kernel.c.
//
//===----------------------------------------------------------------------===//

#include "boo_runtime.h"

#include "TestModules.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

using namespace boo::runtime;

namespace {

/// Takes ownership of `status`; returns "" for OK, else "CODE: message".
std::string take(boo_status_t status) {
  if (!status)
    return "";
  std::string text =
      std::string(boo_status_code_name(boo_status_code(status))) + ": " +
      boo_status_message(status);
  boo_status_free(status);
  return text;
}

#define EXPECT_BOO_OK(expr) EXPECT_EQ(take(expr), "")
#define ASSERT_BOO_OK(expr) ASSERT_EQ(take(expr), "")

/// Expects `status` to have `code` and a message containing `part`.
void expectStatus(boo_status_t status, boo_status_code_t code,
                  const std::string &part) {
  ASSERT_NE(status, nullptr) << "expected " << boo_status_code_name(code);
  EXPECT_EQ(boo_status_code(status), code)
      << boo_status_code_name(boo_status_code(status)) << ": "
      << boo_status_message(status);
  EXPECT_NE(std::string(boo_status_message(status)).find(part),
            std::string::npos)
      << "message \"" << boo_status_message(status) << "\" lacks \"" << part
      << "\"";
  boo_status_free(status);
}

/// Sets or unsets an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = getenv(name)) {
      hadOld = true;
      oldValue = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld)
      setenv(name, oldValue.c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  bool hadOld = false;
  std::string oldValue;
};

//===----------------------------------------------------------------------===//
// Status, devices, buffers
//===----------------------------------------------------------------------===//

TEST(RuntimeStatusTest, CodesAndMessages) {
  EXPECT_EQ(boo_status_code(nullptr), BOO_STATUS_OK);
  EXPECT_STREQ(boo_status_message(nullptr), "");
  boo_status_free(nullptr);
  EXPECT_STREQ(boo_status_code_name(BOO_STATUS_OK), "OK");
  EXPECT_STREQ(boo_status_code_name(BOO_STATUS_INVALID_ARGUMENT),
               "INVALID_ARGUMENT");
  EXPECT_STREQ(boo_status_code_name(BOO_STATUS_INCOMPATIBLE), "INCOMPATIBLE");
  EXPECT_STREQ(boo_status_code_name(BOO_STATUS_INTERNAL), "INTERNAL");
  EXPECT_STREQ(boo_dtype_name(BOO_DTYPE_BF16), "bf16");
  EXPECT_EQ(boo_dtype_size(BOO_DTYPE_F64), 8u);
  EXPECT_EQ(boo_dtype_size(BOO_DTYPE_I8), 1u);
}

TEST(RuntimeDeviceTest, OpenCPU) {
  boo_device_t *device = nullptr;
  ASSERT_BOO_OK(boo_device_open("cpu:3", &device));
  EXPECT_STREQ(boo_device_target(device), test::getHostArch());
  EXPECT_EQ(std::string(boo_device_description(device)),
            std::string("cpu:3 (") + test::getHostArch() + ", 3 threads)");
  EXPECT_EQ(boo_device_host_threads(device), 3u);
  EXPECT_EQ(boo_device_host_threads(nullptr), 0u);
  EXPECT_BOO_OK(boo_device_synchronize(device));
  boo_device_close(device);

  ASSERT_BOO_OK(boo_device_open("cpu", &device));
  EXPECT_EQ(std::string(boo_device_description(device)).rfind("cpu (", 0), 0u);
  boo_device_close(device);
}

TEST(RuntimeDeviceTest, CPUThreadsFromEnvironment) {
  boo_device_t *device = nullptr;
  {
    ScopedEnv env("BOO_CPU_THREADS", "2");
    ASSERT_BOO_OK(boo_device_open("cpu", &device));
    EXPECT_EQ(std::string(boo_device_description(device)),
              std::string("cpu (") + test::getHostArch() + ", 2 threads)");
    EXPECT_EQ(boo_device_host_threads(device), 2u);
    boo_device_close(device);
  }
  ScopedEnv env("BOO_CPU_THREADS", "many");
  expectStatus(boo_device_open("cpu", &device), BOO_STATUS_INVALID_ARGUMENT,
               "BOO_CPU_THREADS=\"many\"");
}

TEST(RuntimeDeviceTest, BadSpecs) {
  for (const char *spec : {"gpu", "hip:x", "cpu:0", "cpu:", "cpu:-1", "cpu:2x",
                           "cpu:99999", "hip:", "", "CPU", "hip:1234567890"}) {
    boo_device_t *device = nullptr;
    expectStatus(boo_device_open(spec, &device), BOO_STATUS_INVALID_ARGUMENT,
                 std::string("invalid device \"") + spec + "\": expected");
    EXPECT_EQ(device, nullptr);
  }
  expectStatus(boo_device_open(nullptr, nullptr), BOO_STATUS_INVALID_ARGUMENT,
               "NULL");
}

TEST(RuntimeDeviceTest, OnlyHIPHasStreams) {
  boo_device_t *device = nullptr;
  ASSERT_BOO_OK(boo_device_open("cpu:1", &device));
  int stream = 0;
  expectStatus(boo_device_set_stream(device, &stream),
               BOO_STATUS_INVALID_ARGUMENT, "has no streams; only hip");
  expectStatus(boo_device_set_stream(nullptr, nullptr),
               BOO_STATUS_INVALID_ARGUMENT, "device is NULL");
  boo_device_close(device);
}

TEST(RuntimeBufferTest, WriteReadAndBounds) {
  boo_device_t *device = nullptr;
  ASSERT_BOO_OK(boo_device_open("cpu:1", &device));
  boo_buffer_t *buffer = nullptr;
  ASSERT_BOO_OK(boo_buffer_allocate(device, 64, &buffer));
  EXPECT_EQ(boo_buffer_size(buffer), 64u);
  float values[16], back[16] = {};
  for (int i = 0; i < 16; ++i)
    values[i] = i * 0.5f;
  EXPECT_BOO_OK(boo_buffer_write(buffer, 0, values, sizeof(values)));
  EXPECT_BOO_OK(boo_buffer_read(buffer, 0, back, sizeof(back)));
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(back[i], values[i]);
  EXPECT_BOO_OK(boo_buffer_read(buffer, 60, back, 4));
  EXPECT_EQ(back[0], values[15]);

  expectStatus(boo_buffer_write(buffer, 60, values, 8),
               BOO_STATUS_INVALID_ARGUMENT,
               "boo_buffer_write of 8 bytes at offset 60 is out of bounds: "
               "the buffer holds 64 bytes");
  expectStatus(boo_buffer_read(buffer, 65, back, 0),
               BOO_STATUS_INVALID_ARGUMENT, "out of bounds");
  expectStatus(boo_buffer_read(buffer, SIZE_MAX, back, 2),
               BOO_STATUS_INVALID_ARGUMENT, "out of bounds");
  expectStatus(boo_buffer_write(buffer, 0, nullptr, 4),
               BOO_STATUS_INVALID_ARGUMENT, "NULL");
  expectStatus(boo_buffer_read(nullptr, 0, back, 4),
               BOO_STATUS_INVALID_ARGUMENT, "NULL");
  boo_buffer_free(buffer);

  ASSERT_BOO_OK(boo_buffer_allocate(device, 0, &buffer));
  EXPECT_EQ(boo_buffer_size(buffer), 0u);
  EXPECT_BOO_OK(boo_buffer_write(buffer, 0, values, 0));
  boo_buffer_free(buffer);
  boo_device_close(device);
}

//===----------------------------------------------------------------------===//
// HIP availability
//===----------------------------------------------------------------------===//

TEST(RuntimeHIPTest, MissingLibraryIsUnavailable) {
  ScopedEnv env("BOO_HIP_LIBRARY", "/nonexistent/libamdhip64.so");
  boo_device_t *device = nullptr;
  boo_status_t status = boo_device_open("hip", &device);
  ASSERT_NE(status, nullptr);
  std::string message = boo_status_message(status);
  EXPECT_NE(message.find("/nonexistent/libamdhip64.so"), std::string::npos)
      << message;
  expectStatus(status, BOO_STATUS_UNAVAILABLE, "no HIP runtime");
}

TEST(RuntimeHIPTest, LibraryWithoutHIPSymbolsIsUnavailable) {
  // libc loads, but is no HIP runtime: the first missing symbol is named.
  ScopedEnv env("BOO_HIP_LIBRARY", "libc.so.6");
  boo_device_t *device = nullptr;
  expectStatus(boo_device_open("hip:0", &device), BOO_STATUS_UNAVAILABLE,
               "HIP runtime libc.so.6 lacks the symbol hipInit");
}

TEST(RuntimeHIPTest, OpenWithoutGPUSaysWhatIsMissing) {
  ScopedEnv env("BOO_HIP_LIBRARY", nullptr);
  boo_device_t *device = nullptr;
  boo_status_t status = boo_device_open("hip", &device);
  if (!status) {
    std::string description = boo_device_description(device);
    boo_device_close(device);
    GTEST_SKIP() << "an AMD GPU is present (" << description
                 << "): the no-GPU messages cannot be checked here";
  }
  std::string message = boo_status_message(status);
  EXPECT_EQ(boo_status_code(status), BOO_STATUS_UNAVAILABLE) << message;
  EXPECT_TRUE(message.find("no AMD GPU") != std::string::npos ||
              message.find("no HIP runtime") != std::string::npos)
      << message;
  boo_status_free(status);

  // An index gives the same answer when there is no GPU at all.
  status = boo_device_open("hip:3", &device);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(boo_status_code(status), BOO_STATUS_UNAVAILABLE)
      << boo_status_message(status);
  boo_status_free(status);
}

//===----------------------------------------------------------------------===//
// CPU modules
//===----------------------------------------------------------------------===//

class RuntimeCPUModuleTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(test::readFile(BOO_TEST_KERNEL_PATH, sharedObject))
        << "cannot read " << BOO_TEST_KERNEL_PATH;
    ASSERT_BOO_OK(boo_device_open("cpu:4", &device));
  }
  void TearDown() override {
    for (boo_buffer_t *buffer : buffers)
      boo_buffer_free(buffer);
    for (boo_module_t *module : modules)
      boo_module_free(module);
    boo_device_close(device);
  }

  std::string serialize(const ModuleDesc &module) {
    std::string bytes, error;
    EXPECT_TRUE(serializeModule(module, bytes, error)) << error;
    return bytes;
  }

  boo_status_t load(const ModuleDesc &desc, boo_module_t *&module) {
    std::string bytes = serialize(desc);
    module = nullptr;
    boo_status_t status =
        boo_module_load_data(device, bytes.data(), bytes.size(), &module);
    if (module)
      modules.push_back(module);
    return status;
  }

  boo_buffer_t *allocate(size_t bytes, boo_device_t *on = nullptr) {
    boo_buffer_t *buffer = nullptr;
    EXPECT_BOO_OK(boo_buffer_allocate(on ? on : device, bytes, &buffer));
    buffers.push_back(buffer);
    return buffer;
  }

  /// Runs @add on n elements and checks c = a + b; returns the stats.
  std::vector<int32_t> runAdd(boo_module_t *module, int64_t n) {
    boo_function_t *add = nullptr;
    EXPECT_BOO_OK(boo_module_lookup_function(module, "add", &add));
    if (!add)
      return {};
    std::vector<float> a(n), b(n), c(n, -1);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = float(i);
      b[i] = float(2 * i) + 0.25f;
    }
    boo_buffer_t *inputs[] = {allocate(n * 4), allocate(n * 4)};
    boo_buffer_t *results[] = {allocate(n * 4), allocate(12)};
    EXPECT_BOO_OK(boo_buffer_write(inputs[0], 0, a.data(), n * 4));
    EXPECT_BOO_OK(boo_buffer_write(inputs[1], 0, b.data(), n * 4));
    EXPECT_BOO_OK(boo_function_invoke(add, inputs, 2, results, 2));
    EXPECT_BOO_OK(boo_buffer_read(results[0], 0, c.data(), n * 4));
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(c[i], a[i] + b[i]) << "element " << i;
    std::vector<int32_t> stats(3);
    EXPECT_BOO_OK(boo_buffer_read(results[1], 0, stats.data(), 12));
    return stats;
  }

  std::string sharedObject;
  boo_device_t *device = nullptr;
  std::vector<boo_module_t *> modules;
  std::vector<boo_buffer_t *> buffers;
};

TEST_F(RuntimeCPUModuleTest, AddRunsOnThePoolsThreads) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 1000), module));
  EXPECT_STREQ(boo_module_targets(module), test::getHostArch());
  ASSERT_EQ(boo_module_function_count(module), 3u);
  EXPECT_STREQ(boo_module_function_name(module, 1), "describe");
  EXPECT_EQ(boo_module_function_name(module, 3), nullptr);

  boo_function_t *add = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  EXPECT_STREQ(boo_function_name(add), "add");
  EXPECT_EQ(boo_function_input_count(add), 2u);
  EXPECT_EQ(boo_function_result_count(add), 2u);
  EXPECT_EQ(boo_function_launch_count(add), 1u);
  boo_tensor_info_t info;
  ASSERT_BOO_OK(boo_function_input(add, 1, &info));
  EXPECT_STREQ(info.name, "b");
  EXPECT_EQ(info.dtype, BOO_DTYPE_F32);
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.dims[0], 1000);
  ASSERT_BOO_OK(boo_function_result(add, 1, &info));
  EXPECT_EQ(info.dtype, BOO_DTYPE_I32);
  expectStatus(boo_function_result(add, 2, &info), BOO_STATUS_INVALID_ARGUMENT,
               "result 2 does not exist");

  boo_event_t *start = nullptr, *end = nullptr;
  ASSERT_BOO_OK(boo_event_create(device, &start));
  ASSERT_BOO_OK(boo_event_create(device, &end));
  EXPECT_BOO_OK(boo_event_record(start));
  std::vector<int32_t> stats = runAdd(module, 1000);
  EXPECT_BOO_OK(boo_event_record(end));
  double ms = -1;
  EXPECT_BOO_OK(boo_event_elapsed_ms(start, end, &ms));
  EXPECT_GE(ms, 0.0);
  boo_event_free(start);
  boo_event_free(end);

  ASSERT_EQ(stats.size(), 3u);
  // About four chunks per thread; each chunk sleeps, so all four threads
  // take part.
  EXPECT_GT(stats[0], 1);
  EXPECT_LE(stats[0], 16);
  EXPECT_GT(stats[1], 1) << "the dispatcher ran single-threaded";
  EXPECT_LE(stats[1], 4);
  EXPECT_EQ(stats[2], 1) << "bad memref descriptors";
}

TEST_F(RuntimeCPUModuleTest, DescriptorsHaveIdentityStrides) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 8), module));
  boo_function_t *describe = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "describe", &describe));
  boo_buffer_t *inputs[] = {allocate(2 * 3 * 4 * 4)};
  boo_buffer_t *results[] = {allocate(8 * 4)};
  ASSERT_BOO_OK(boo_function_invoke(describe, inputs, 1, results, 1));
  std::vector<int32_t> out(8);
  ASSERT_BOO_OK(boo_buffer_read(results[0], 0, out.data(), 32));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 3, 4, 12, 4, 1, 0, 1}));
}

TEST_F(RuntimeCPUModuleTest, NestedParallelismRunsInline) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 100), module));
  boo_function_t *nested = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "nested", &nested));
  boo_buffer_t *inputs[] = {allocate(400)};
  boo_buffer_t *results[] = {allocate(8)};
  ASSERT_BOO_OK(boo_function_invoke(nested, inputs, 1, results, 1));
  int32_t out[2];
  ASSERT_BOO_OK(boo_buffer_read(results[0], 0, out, 8));
  EXPECT_GT(out[0], 1);
  EXPECT_EQ(out[1], 0) << "an inner loop was split across the pool";
}

TEST_F(RuntimeCPUModuleTest, ModulesFromTheSameBytesAreIndependent) {
  // Load and free in overlapping orders, so that descriptor numbers and
  // /proc/self/fd names get reused.
  for (int round = 0; round < 5; ++round) {
    boo_module_t *first = nullptr, *second = nullptr;
    ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 64), first));
    ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 128), second));
    EXPECT_EQ(runAdd(first, 64)[0] > 0, true);
    EXPECT_EQ(runAdd(second, 128)[0] > 0, true);
    boo_module_free(first);
    modules.erase(std::find(modules.begin(), modules.end(), first));
    EXPECT_EQ(runAdd(second, 128)[2], 1);
  }
}

TEST_F(RuntimeCPUModuleTest, LoadFile) {
  std::string bytes = serialize(test::makeTestModule(sharedObject, 16));
  char path[] = "/tmp/boo-runtime-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  close(fd);
  boo_module_t *module = nullptr;
  EXPECT_BOO_OK(boo_module_load_file(device, path, &module));
  boo_module_free(module);
  unlink(path);
  expectStatus(boo_module_load_file(device, "/nonexistent/x.boomod", &module),
               BOO_STATUS_NOT_FOUND, "/nonexistent/x.boomod");
}

TEST_F(RuntimeCPUModuleTest, InvokeChecksArguments) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 1000), module));
  boo_function_t *add = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  boo_buffer_t *a = allocate(4000), *b = allocate(4000), *c = allocate(4000),
               *stats = allocate(12), *small = allocate(100);
  boo_buffer_t *inputs[] = {a, b}, *results[] = {c, stats};

  expectStatus(boo_function_invoke(add, inputs, 1, results, 2),
               BOO_STATUS_INVALID_ARGUMENT, "@add: expected 2 input(s), got 1");
  expectStatus(boo_function_invoke(add, inputs, 2, results, 3),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: expected 2 result(s), got 3");
  boo_buffer_t *withNull[] = {a, nullptr};
  expectStatus(boo_function_invoke(add, withNull, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT, "@add: input 1 (b) is NULL");
  boo_buffer_t *tooSmall[] = {a, small};
  expectStatus(boo_function_invoke(add, tooSmall, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: input 1 (b): buffer holds 100 bytes, the tensor "
               "1000xf32 needs 4000");
  boo_buffer_t *smallStats[] = {c, small};
  EXPECT_BOO_OK(boo_function_invoke(add, inputs, 2, smallStats, 2));

  boo_device_t *other = nullptr;
  ASSERT_BOO_OK(boo_device_open("cpu:1", &other));
  boo_buffer_t *foreign = nullptr;
  ASSERT_BOO_OK(boo_buffer_allocate(other, 4000, &foreign));
  boo_buffer_t *withForeign[] = {foreign, b};
  expectStatus(boo_function_invoke(add, withForeign, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: input 0 (a) is a buffer of another device (cpu:1); the "
               "module is loaded on cpu:4");
  boo_buffer_free(foreign);
  boo_device_close(other);
}

TEST_F(RuntimeCPUModuleTest, InvokeViewsRunsOnCallerMemory) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 1000), module));
  boo_function_t *add = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  std::vector<float> a(1000), b(1000), c(1000, -1);
  for (int i = 0; i < 1000; ++i) {
    a[i] = float(i);
    b[i] = 0.5f * float(i);
  }
  std::vector<int32_t> stats(3, -1);
  int64_t n = 1000, three = 3, unit = 1;
  boo_tensor_view_t inputs[] = {{a.data(), BOO_DTYPE_F32, 1, &n, &unit},
                                {b.data(), BOO_DTYPE_F32, 1, &n, nullptr}};
  boo_tensor_view_t results[] = {
      {c.data(), BOO_DTYPE_F32, 1, &n, &unit},
      {stats.data(), BOO_DTYPE_I32, 1, &three, nullptr}};
  ASSERT_BOO_OK(boo_function_invoke_views(add, inputs, 2, results, 2));
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(c[i], 1.5f * float(i)) << "element " << i;
  EXPECT_GT(stats[0], 0) << "chunks run";
  EXPECT_EQ(stats[2], 1) << "descriptors with offset 0 and unit stride";
}

TEST_F(RuntimeCPUModuleTest, InvokeViewsChecksArguments) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 1000), module));
  boo_function_t *add = nullptr, *describe = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  ASSERT_BOO_OK(boo_module_lookup_function(module, "describe", &describe));
  std::vector<float> data(1000);
  std::vector<int32_t> out(8);
  int64_t n = 1000, other = 999, three = 3, two = 2;
  auto f32 = [&](const int64_t *dims, const int64_t *strides = nullptr) {
    return boo_tensor_view_t{data.data(), BOO_DTYPE_F32, 1, dims, strides};
  };
  boo_tensor_view_t stats{out.data(), BOO_DTYPE_I32, 1, &three, nullptr};
  boo_tensor_view_t good[] = {f32(&n), f32(&n)};
  boo_tensor_view_t results[] = {f32(&n), stats};

  expectStatus(boo_function_invoke_views(add, good, 1, results, 2),
               BOO_STATUS_INVALID_ARGUMENT, "@add: expected 2 input(s), got 1");
  boo_tensor_view_t wrongType[] = {f32(&n), stats};
  expectStatus(boo_function_invoke_views(add, wrongType, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: input 1 (b) is i32, the function takes 1000xf32");
  boo_tensor_view_t wrongShape[] = {f32(&n), f32(&other)};
  expectStatus(boo_function_invoke_views(add, wrongShape, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: input 1 (b) has shape [999], the function takes "
               "1000xf32");
  boo_tensor_view_t strided[] = {f32(&n, &two), f32(&n)};
  expectStatus(boo_function_invoke_views(add, strided, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT,
               "@add: input 0 (a) has strides [2] (elements) for shape "
               "[1000]; the function reads it dense row-major");
  boo_tensor_view_t noData[] = {f32(&n), f32(&n)};
  noData[0].data = nullptr;
  expectStatus(boo_function_invoke_views(add, noData, 2, results, 2),
               BOO_STATUS_INVALID_ARGUMENT, "@add: input 0 (a): data is NULL");

  // @describe takes f32[2,3,4]: row-major strides pass, column-major ones
  // do not.
  int64_t dims[] = {2, 3, 4}, rowMajor[] = {12, 4, 1}, colMajor[] = {1, 2, 6};
  boo_tensor_view_t x{data.data(), BOO_DTYPE_F32, 3, dims, rowMajor};
  boo_tensor_view_t described{out.data(), BOO_DTYPE_I32, 1, nullptr, nullptr};
  int64_t eight = 8;
  described.dims = &eight;
  EXPECT_BOO_OK(boo_function_invoke_views(describe, &x, 1, &described, 1));
  x.strides = colMajor;
  expectStatus(boo_function_invoke_views(describe, &x, 1, &described, 1),
               BOO_STATUS_INVALID_ARGUMENT,
               "@describe: input 0 (x) has strides [1, 2, 6] (elements) for "
               "shape [2, 3, 4]");
  x.strides = rowMajor;
  int64_t oneDims[] = {1, 8}, oneStrides[] = {1000, 1};
  int32_t wide[8];
  boo_tensor_view_t rowOfOne{wide, BOO_DTYPE_I32, 2, oneDims, oneStrides};
  expectStatus(boo_function_invoke_views(describe, &x, 1, &rowOfOne, 1),
               BOO_STATUS_INVALID_ARGUMENT,
               "@describe: result 0 (out) has shape [1, 8], the function "
               "takes 8xi32");
}

TEST_F(RuntimeCPUModuleTest, LookupErrors) {
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(test::makeTestModule(sharedObject, 4), module));
  boo_function_t *function = nullptr;
  expectStatus(boo_module_lookup_function(module, "conv", &function),
               BOO_STATUS_NOT_FOUND,
               "no function 'conv' in the module; it has: add, describe, "
               "nested");
  expectStatus(boo_module_lookup_function(module, nullptr, &function),
               BOO_STATUS_INVALID_ARGUMENT, "the module has 3 functions");
}

TEST_F(RuntimeCPUModuleTest, OnlyFunctionByEmptyName) {
  ModuleDesc desc = test::makeTestModule(sharedObject, 4);
  desc.functions.resize(1);
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(desc, module));
  boo_function_t *function = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "", &function));
  EXPECT_STREQ(boo_function_name(function), "add");
}

TEST_F(RuntimeCPUModuleTest, GPUOnlyModuleIsIncompatible) {
  ModuleDesc desc = test::makeTestModule(sharedObject, 4);
  desc.targets = {{TargetKind::HIP, "gfx942", ""},
                  {TargetKind::HIP, "gfx1100", ""}};
  desc.functions.resize(1);
  desc.codeObjects = {"not really an HSACO"};
  desc.functions[0].impls[0].launches[0].grid[0] = 4;
  boo_module_t *module = nullptr;
  expectStatus(load(desc, module), BOO_STATUS_INCOMPATIBLE,
               std::string("the module has no code for ") +
                   test::getHostArch() + "; it has: gfx942, gfx1100");
}

TEST_F(RuntimeCPUModuleTest, FunctionWithoutCodeForTheTarget) {
  ModuleDesc desc = test::makeTestModule(sharedObject, 4);
  desc.targets.push_back({TargetKind::HIP, "gfx942", ""});
  desc.codeObjects.push_back("hsaco");
  FunctionImpl gpu;
  gpu.target = 1;
  gpu.launches = desc.functions[1].impls[0].launches;
  gpu.launches[0].codeObject = 1;
  desc.functions[1].impls = {gpu};
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(desc, module));
  EXPECT_EQ(std::string(boo_module_targets(module)),
            std::string(test::getHostArch()) + ",gfx942");
  boo_function_t *function = nullptr;
  expectStatus(boo_module_lookup_function(module, "describe", &function),
               BOO_STATUS_INCOMPATIBLE,
               std::string("@describe has no code for ") + test::getHostArch());
}

TEST_F(RuntimeCPUModuleTest, MissingCPUFeatureIsIncompatible) {
  boo_module_t *module = nullptr;
  boo_status_t status =
      load(test::makeTestModule(sharedObject, 4, "avx2,avx512f"), module);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2")) {
    EXPECT_EQ(take(status), "") << "this host has avx2 and avx512f";
  } else {
    expectStatus(status, BOO_STATUS_INCOMPATIBLE,
                 __builtin_cpu_supports("avx2") ? "needs CPU feature avx512f"
                                                : "needs CPU feature avx2");
  }
#else
  expectStatus(status, BOO_STATUS_INCOMPATIBLE, "'avx2'");
#endif
  expectStatus(load(test::makeTestModule(sharedObject, 4, "sve2"), module),
               BOO_STATUS_INCOMPATIBLE,
               "needs CPU feature 'sve2', which this runtime cannot check");
}

TEST_F(RuntimeCPUModuleTest, MissingEntrySymbol) {
  boo_module_t *module = nullptr;
  expectStatus(
      load(test::makeTestModule(sharedObject, 4, "", "boo_missing_entry"),
           module),
      BOO_STATUS_INVALID_MODULE,
      "@add: code object 0 does not define the entry symbol "
      "'boo_missing_entry'");
  // A symbol of a dependency (libc) is not an entry of the code object.
  expectStatus(
      load(test::makeTestModule(sharedObject, 4, "", "memcpy"), module),
      BOO_STATUS_INVALID_MODULE, "'memcpy'");
}

TEST_F(RuntimeCPUModuleTest, BadModules) {
  std::string bytes = serialize(test::makeTestModule(sharedObject, 4));
  bytes[bytes.size() / 2] ^= 0x10;
  boo_module_t *module = nullptr;
  expectStatus(
      boo_module_load_data(device, bytes.data(), bytes.size(), &module),
      BOO_STATUS_INVALID_MODULE, "invalid module: checksum mismatch");
  expectStatus(boo_module_load_data(device, bytes.data(), 10, &module),
               BOO_STATUS_INVALID_MODULE, "invalid module: truncated");

  ModuleDesc notELF = test::makeTestModule("not an ELF file", 4);
  expectStatus(load(notELF, module), BOO_STATUS_INVALID_MODULE,
               "code object 0 is not a loadable shared object");
}

} // namespace
