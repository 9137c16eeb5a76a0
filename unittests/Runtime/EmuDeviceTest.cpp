//===- EmuDeviceTest.cpp - The "emu:<chip>" device through the C API ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Opens emulator devices and runs modules with an Emu target whose code
// object is the hand-written shared object of Inputs/emu_kernels.cpp:
// launches with scratch buffers and immediates, target selection, and a
// launch whose checks fire failing the invocation.
//
//===----------------------------------------------------------------------===//

#include "boo_runtime.h"

#include "TestModules.h"

#include "gtest/gtest.h"

#include <vector>

using namespace boo::runtime;

namespace {

std::string take(boo_status_t status) {
  if (!status)
    return "";
  std::string text =
      std::string(boo_status_code_name(boo_status_code(status))) + ": " +
      boo_status_message(status);
  boo_status_free(status);
  return text;
}

#define ASSERT_BOO_OK(expr) ASSERT_EQ(take(expr), "")

#define EXPECT_STATUS(expr, code, part)                                        \
  do {                                                                         \
    std::string text = take(expr);                                             \
    EXPECT_EQ(text.rfind(std::string(code) + ": ", 0), 0u) << text;            \
    EXPECT_NE(text.find(part), std::string::npos)                              \
        << "\"" << text << "\" lacks \"" << (part) << "\"";                    \
  } while (false)

TEST(EmuDeviceTest, OpenAndDescribe) {
  boo_device_t *device = nullptr;
  ASSERT_BOO_OK(boo_device_open("emu:gfx942:2", &device));
  EXPECT_STREQ(boo_device_target(device), "gfx942");
  EXPECT_EQ(std::string(boo_device_description(device)),
            std::string("emu:gfx942:2 (gfx942 emulated on ") +
                test::getHostArch() + ", wave64, 2 threads)");
  EXPECT_EQ(boo_device_host_threads(device), 2u);
  boo_device_close(device);

  ASSERT_BOO_OK(boo_device_open("emu:gfx1100", &device));
  EXPECT_NE(std::string(boo_device_description(device)).find("wave32"),
            std::string::npos);
  boo_device_close(device);
}

TEST(EmuDeviceTest, BadSpecs) {
  for (const char *spec : {"emu", "emu:", "emu:gfx942:0", "emu:gfx942:x",
                           "emu::2", "emu:gfx942:"}) {
    boo_device_t *device = nullptr;
    EXPECT_STATUS(boo_device_open(spec, &device), "INVALID_ARGUMENT",
                  std::string("invalid device \"") + spec + "\"");
    EXPECT_EQ(device, nullptr);
  }
  boo_device_t *device = nullptr;
  EXPECT_STATUS(boo_device_open("emu:gfx000", &device), "INVALID_ARGUMENT",
                "invalid device \"emu:gfx000\": the emulator does not know "
                "chip 'gfx000'; it supports gfx90a, gfx942, gfx950, gfx1100, "
                "gfx1201");
}

TensorDesc vector(const std::string &name, int64_t n) {
  TensorDesc tensor;
  tensor.name = name;
  tensor.dims = {n};
  return tensor;
}

Launch emuLaunch(const std::string &kernel, int64_t items,
                 std::vector<LaunchArg> args) {
  Launch launch;
  launch.kernel = kernel;
  launch.grid[0] = uint32_t((items + 63) / 64);
  launch.workgroup[0] = 64;
  launch.dynamicLdsBytes = 64 * 4;
  launch.args = std::move(args);
  return launch;
}

class EmuModuleTest : public ::testing::Test {
protected:
  static constexpr int64_t kN = 100;

  void SetUp() override {
    ASSERT_TRUE(test::readFile(BOO_TEST_EMU_KERNEL_PATH, sharedObject))
        << "cannot read " << BOO_TEST_EMU_KERNEL_PATH;
  }
  void TearDown() override {
    for (boo_buffer_t *buffer : buffers)
      boo_buffer_free(buffer);
    for (boo_module_t *module : modules)
      boo_module_free(module);
    for (boo_device_t *device : devices)
      boo_device_close(device);
  }

  boo_device_t *open(const char *spec) {
    boo_device_t *device = nullptr;
    EXPECT_EQ(take(boo_device_open(spec, &device)), "");
    if (device)
      devices.push_back(device);
    return device;
  }

  /// @add(a, b) -> c = 2a + b in two launches through a scratch buffer;
  /// @oob(a) -> c, whose launch covers 2n work-items.
  ModuleDesc makeModule(const std::string &addKernel = "boo_test_emu_add") {
    ModuleDesc module;
    module.producer = "boo emulator tests";
    module.targets.push_back({TargetKind::Emu, "gfx942", ""});
    module.codeObjects.push_back(sharedObject);
    uint64_t n = kN;

    FunctionDesc add;
    add.name = "add";
    add.inputs = {vector("a", kN), vector("b", kN)};
    add.results = {vector("c", kN)};
    FunctionImpl impl;
    // Scratch holds 8 floats of padding, then 2a.
    impl.scratchBytes = {(kN + 8) * 4};
    impl.launches.push_back(emuLaunch(addKernel, kN,
                                      {{ArgKind::Input, 0, 0},
                                       {ArgKind::Input, 0, 0},
                                       {ArgKind::Scratch, 0, 32},
                                       {ArgKind::Imm32, 0, n}}));
    impl.launches.push_back(emuLaunch("boo_test_emu_add", kN,
                                      {{ArgKind::Scratch, 0, 32},
                                       {ArgKind::Input, 1, 0},
                                       {ArgKind::Result, 0, 0},
                                       {ArgKind::Imm32, 0, n}}));
    add.impls.push_back(impl);
    module.functions.push_back(add);

    FunctionDesc oob;
    oob.name = "oob";
    oob.inputs = {vector("a", kN)};
    oob.results = {vector("c", kN)};
    FunctionImpl oobImpl;
    oobImpl.launches.push_back(emuLaunch("boo_test_emu_oob", 2 * kN,
                                         {{ArgKind::Input, 0, 0},
                                          {ArgKind::Result, 0, 0},
                                          {ArgKind::Imm32, 0, n}}));
    oob.impls.push_back(oobImpl);
    module.functions.push_back(oob);
    return module;
  }

  boo_status_t load(boo_device_t *device, const ModuleDesc &desc,
                    boo_module_t *&module) {
    std::string bytes, error;
    EXPECT_TRUE(serializeModule(desc, bytes, error)) << error;
    module = nullptr;
    boo_status_t status =
        boo_module_load_data(device, bytes.data(), bytes.size(), &module);
    if (module)
      modules.push_back(module);
    return status;
  }

  boo_buffer_t *upload(boo_device_t *device, const std::vector<float> &data) {
    boo_buffer_t *buffer = nullptr;
    EXPECT_EQ(take(boo_buffer_allocate(device, data.size() * 4, &buffer)), "");
    buffers.push_back(buffer);
    EXPECT_EQ(take(boo_buffer_write(buffer, 0, data.data(), data.size() * 4)),
              "");
    return buffer;
  }

  std::string sharedObject;
  std::vector<boo_device_t *> devices;
  std::vector<boo_module_t *> modules;
  std::vector<boo_buffer_t *> buffers;
};

TEST_F(EmuModuleTest, RunsLaunchesWithScratchAndImmediates) {
  boo_device_t *device = open("emu:gfx942:2");
  ASSERT_NE(device, nullptr);
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(device, makeModule(), module));
  EXPECT_STREQ(boo_module_targets(module), "emu:gfx942");
  boo_function_t *add = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  EXPECT_EQ(boo_function_launch_count(add), 2u);

  std::vector<float> a(kN), b(kN), c(kN, -1.0f);
  for (int64_t i = 0; i < kN; ++i) {
    a[i] = float(i) * 0.25f;
    b[i] = 1000.0f - float(i);
  }
  boo_buffer_t *inputs[] = {upload(device, a), upload(device, b)};
  boo_buffer_t *results[] = {upload(device, c)};
  boo_event_t *start = nullptr, *stop = nullptr;
  ASSERT_BOO_OK(boo_event_create(device, &start));
  ASSERT_BOO_OK(boo_event_create(device, &stop));
  ASSERT_BOO_OK(boo_event_record(start));
  ASSERT_BOO_OK(boo_function_invoke(add, inputs, 2, results, 1));
  ASSERT_BOO_OK(boo_event_record(stop));
  double ms = -1;
  ASSERT_BOO_OK(boo_event_elapsed_ms(start, stop, &ms));
  EXPECT_GE(ms, 0.0);
  boo_event_free(start);
  boo_event_free(stop);
  ASSERT_BOO_OK(boo_device_synchronize(device));
  ASSERT_BOO_OK(boo_buffer_read(results[0], 0, c.data(), kN * 4));
  for (int64_t i = 0; i < kN; ++i)
    EXPECT_EQ(c[i], 2 * a[i] + b[i]) << i;
}

// @add's kernel stores and loads 4 bytes of LDS per work-item at
// consecutive dwords: per 64-lane wave, one store and one load of 256
// bytes, each 2 conflict-free cycles (32 lanes per cycle). Each of the two
// launches has 2 workgroups of one wave.
TEST_F(EmuModuleTest, ProfileCountsEachLaunch) {
  boo_device_t *device = open("emu:gfx942:2");
  ASSERT_NE(device, nullptr);
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(device, makeModule(), module));
  boo_function_t *add = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "add", &add));
  std::vector<float> a(kN, 1.0f), b(kN, 2.0f), c(kN);
  boo_buffer_t *inputs[] = {upload(device, a), upload(device, b)};
  boo_buffer_t *results[] = {upload(device, c)};

  const boo_launch_profile_t *profiles = nullptr;
  size_t count = 0;
  EXPECT_STATUS(boo_device_profile_end(device, &profiles, &count),
                "INVALID_ARGUMENT", "without boo_device_profile_begin");
  for (uint64_t sample : {0u, 1u}) {
    ASSERT_BOO_OK(boo_device_profile_begin(device, sample));
    ASSERT_BOO_OK(boo_function_invoke(add, inputs, 2, results, 1));
    ASSERT_BOO_OK(boo_device_profile_end(device, &profiles, &count));
    ASSERT_EQ(count, 2u);
    uint64_t ran = sample ? 1 : 2;
    for (size_t l = 0; l < count; ++l) {
      const boo_launch_profile_t &p = profiles[l];
      EXPECT_STREQ(p.kernel, "boo_test_emu_add");
      EXPECT_EQ(p.workgroups, 2u);
      EXPECT_EQ(p.profiled_workgroups, ran);
      EXPECT_EQ(p.waves, ran);
      EXPECT_EQ(p.lds_store_instructions, ran);
      EXPECT_EQ(p.lds_load_instructions, ran);
      EXPECT_EQ(p.lds_bytes, 512 * ran);
      EXPECT_EQ(p.lds_cycles, 4 * ran);
      EXPECT_EQ(p.lds_conflict_free_cycles, 4 * ran);
      EXPECT_EQ(p.mma_instructions, 0u);
    }
  }
  // Launches after the profile's end are not counted.
  ASSERT_BOO_OK(boo_function_invoke(add, inputs, 2, results, 1));
  EXPECT_STATUS(boo_device_profile_end(device, &profiles, &count),
                "INVALID_ARGUMENT", "without boo_device_profile_begin");
  EXPECT_STATUS(boo_device_profile_begin(open("cpu:1"), 0), "INVALID_ARGUMENT",
                "only emulator (emu:*) devices");
}

TEST_F(EmuModuleTest, ChecksFailTheInvocation) {
  boo_device_t *device = open("emu:gfx942:1");
  ASSERT_NE(device, nullptr);
  boo_module_t *module = nullptr;
  ASSERT_BOO_OK(load(device, makeModule(), module));
  boo_function_t *oob = nullptr;
  ASSERT_BOO_OK(boo_module_lookup_function(module, "oob", &oob));
  std::vector<float> a(kN, 1.0f), c(kN);
  boo_buffer_t *inputs[] = {upload(device, a)};
  boo_buffer_t *results[] = {upload(device, c)};
  EXPECT_STATUS(
      boo_function_invoke(oob, inputs, 1, results, 1), "INTERNAL",
      "@oob: launch 0: kernel 'boo_test_emu_oob' (grid 4x1x1, workgroup "
      "64x1x1, 256 bytes of LDS, gfx942): 312 errors; the first 8:\n  "
      "kernel 'boo_test_emu_oob', workgroup (1,0,0), work-item (36,0,0) "
      "(wave 0, lane 36): out-of-bounds load of argument 0: element 100 of "
      "100 elements; dim 0 index 100 of size 100\n");
}

TEST_F(EmuModuleTest, TargetSelection) {
  boo_module_t *module = nullptr;
  EXPECT_STATUS(load(open("emu:gfx1100"), makeModule(), module), "INCOMPATIBLE",
                "the module has no code for emu:gfx1100; it has: emu:gfx942");
  EXPECT_STATUS(load(open("cpu:1"), makeModule(), module), "INCOMPATIBLE",
                std::string("the module has no code for ") +
                    test::getHostArch() + "; it has: emu:gfx942");
  // A HIP target for the same chip is not the emulator's.
  ModuleDesc hipOnly = makeModule();
  hipOnly.targets[0].kind = TargetKind::HIP;
  EXPECT_STATUS(load(open("emu:gfx942"), hipOnly, module), "INCOMPATIBLE",
                "the module has no code for emu:gfx942; it has: gfx942");
}

TEST_F(EmuModuleTest, MissingKernelSymbol) {
  boo_module_t *module = nullptr;
  EXPECT_STATUS(
      load(open("emu:gfx942"), makeModule("boo_test_emu_nope"), module),
      "INVALID_MODULE",
      "@add: code object 0 does not define the kernel "
      "'boo_test_emu_nope'");
}

} // namespace
