/*===- boo_runtime.h - Boo runtime C API ---------------------------------===*
 *
 * Part of the Boo project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Loads compiled Boo modules (docs/ModuleFormat.md) and runs their functions
 * on a device. The library depends on neither MLIR nor LLVM: it is what a
 * process that launches precompiled kernels links.
 *
 * Devices:
 *   "cpu"      the host; the module's native code runs in-process,
 *              multi-threaded over the host's cores ("cpu:N": N threads).
 *   "hip"      the first AMD GPU, through HIP loaded at run time with dlopen
 *              (libamdhip64.so; BOO_HIP_LIBRARY overrides the path).
 *   "hip:N"    the N-th AMD GPU.
 *   "emu:CHIP" the SIMT emulator of AMD chip CHIP (gfx90a, gfx942, gfx950,
 *              gfx1100, gfx1201): runs the module's emulator code for the
 *              chip on the host, one fiber per work-item, and fails an
 *              invocation whose kernels access out of bounds, race on LDS
 *              or diverge at barriers ("emu:CHIP:N": N threads; default as
 *              for "cpu"). docs/Emulator.md.
 *
 * Every call that can fail returns a boo_status_t: NULL on success, else an
 * object with a code and a message that the caller frees with
 * boo_status_free. Objects are freed in reverse order of creation (buffers
 * and modules before their device).
 *
 * Calls on one device are not thread-safe unless stated; different devices
 * may be used from different threads.
 *
 *===----------------------------------------------------------------------===*/

#ifndef BOO_RUNTIME_H
#define BOO_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===--------------------------------------------------------------------===*
 * Status
 *===--------------------------------------------------------------------===*/

typedef enum boo_status_code_e {
  BOO_STATUS_OK = 0,
  /* A caller mistake: null pointer, wrong count, size or device. */
  BOO_STATUS_INVALID_ARGUMENT = 1,
  /* No such function, file or device index. */
  BOO_STATUS_NOT_FOUND = 2,
  /* The backend cannot run here: no HIP runtime, no GPU. */
  BOO_STATUS_UNAVAILABLE = 3,
  /* The module file is truncated, corrupted or of another version. */
  BOO_STATUS_INVALID_MODULE = 4,
  /* The module has no code for this device's target. */
  BOO_STATUS_INCOMPATIBLE = 5,
  BOO_STATUS_OUT_OF_MEMORY = 6,
  /* A backend call failed (the message names it). */
  BOO_STATUS_INTERNAL = 7,
} boo_status_code_t;

typedef struct boo_status *boo_status_t; /* NULL means OK */

boo_status_code_t boo_status_code(boo_status_t status);
/* The message; "" for NULL. Valid until boo_status_free. */
const char *boo_status_message(boo_status_t status);
void boo_status_free(boo_status_t status);
/* "OK", "INVALID_ARGUMENT", ... */
const char *boo_status_code_name(boo_status_code_t code);

/*===--------------------------------------------------------------------===*
 * Devices
 *===--------------------------------------------------------------------===*/

typedef struct boo_device boo_device_t;

/* Opens "cpu", "cpu:N", "hip", "hip:N", "emu:CHIP" or "emu:CHIP:N". An
 * unknown CHIP is BOO_STATUS_INVALID_ARGUMENT listing the known ones. On a
 * machine without HIP, "hip" is BOO_STATUS_UNAVAILABLE and the message says
 * whether the HIP runtime library or an AMD GPU is missing. */
boo_status_t boo_device_open(const char *spec, boo_device_t **out_device);
void boo_device_close(boo_device_t *device);
/* Human-readable: "cpu (x86_64, 2 threads)", "hip:0 (gfx942, ...)",
 * "emu:gfx942 (gfx942 emulated on x86_64, wave64, 2 threads)". */
const char *boo_device_description(const boo_device_t *device);
/* The code-object target this device runs: "x86_64", "gfx942", ... (an
 * emulator device runs its chip's emulator targets, not its HIP ones). */
const char *boo_device_target(const boo_device_t *device);
/* The host threads the device's work runs on: N of "cpu:N" or
 * "emu:CHIP:N" (the default count without ":N"); 0 for hip devices and a
 * NULL device. */
unsigned boo_device_host_threads(const boo_device_t *device);
/* Waits until all work submitted to the device has finished. */
boo_status_t boo_device_synchronize(boo_device_t *device);
/* hip devices: orders later launches, copies, events and synchronize on
 * `stream`, a hipStream_t of the device that the caller owns and keeps alive
 * while it is set (e.g. PyTorch's current stream); NULL goes back to the
 * device's own stream. Work already submitted finishes first. Other devices
 * have no streams: BOO_STATUS_INVALID_ARGUMENT. */
boo_status_t boo_device_set_stream(boo_device_t *device, void *stream);

/*===--------------------------------------------------------------------===*
 * Buffers (device memory; host memory on the CPU device)
 *===--------------------------------------------------------------------===*/

typedef struct boo_buffer boo_buffer_t;

boo_status_t boo_buffer_allocate(boo_device_t *device, size_t bytes,
                                 boo_buffer_t **out_buffer);
void boo_buffer_free(boo_buffer_t *buffer);
size_t boo_buffer_size(const boo_buffer_t *buffer);
/* Host -> buffer and buffer -> host copies; synchronous. */
boo_status_t boo_buffer_write(boo_buffer_t *buffer, size_t offset,
                              const void *source, size_t bytes);
boo_status_t boo_buffer_read(const boo_buffer_t *buffer, size_t offset,
                             void *destination, size_t bytes);

/*===--------------------------------------------------------------------===*
 * Modules and functions
 *===--------------------------------------------------------------------===*/

typedef enum boo_dtype_e {
  BOO_DTYPE_F32 = 0,
  BOO_DTYPE_F16 = 1,
  BOO_DTYPE_BF16 = 2,
  BOO_DTYPE_F64 = 3,
  BOO_DTYPE_I32 = 4,
  BOO_DTYPE_I8 = 5,
  BOO_DTYPE_I64 = 6,
} boo_dtype_t;

/* "f32", "f16", ...; bytes per element. */
const char *boo_dtype_name(boo_dtype_t dtype);
size_t boo_dtype_size(boo_dtype_t dtype);

typedef struct boo_tensor_info {
  const char *name; /* may be "" */
  boo_dtype_t dtype;
  size_t rank;
  const int64_t *dims; /* rank entries, row-major dense layout */
} boo_tensor_info_t;

typedef struct boo_module boo_module_t;
typedef struct boo_function boo_function_t;

/* Reads, checks and loads a module for `device`. A truncated, corrupted or
 * wrong-version file is BOO_STATUS_INVALID_MODULE; a module without code for
 * the device's target is BOO_STATUS_INCOMPATIBLE, and the message lists the
 * targets the module has. `data` is copied. */
boo_status_t boo_module_load_file(boo_device_t *device, const char *path,
                                  boo_module_t **out_module);
boo_status_t boo_module_load_data(boo_device_t *device, const void *data,
                                  size_t size, boo_module_t **out_module);
void boo_module_free(boo_module_t *module);

/* The targets the module has code for, e.g. "gfx942,gfx1100,x86_64";
 * emulator targets as "emu:gfx942". Valid while the module lives. */
const char *boo_module_targets(const boo_module_t *module);
size_t boo_module_function_count(const boo_module_t *module);
/* The function's name, or NULL when out of range. */
const char *boo_module_function_name(const boo_module_t *module,
                                     size_t index);

/* `name` NULL or "": the module's only function. Functions live as long as
 * their module. */
boo_status_t boo_module_lookup_function(boo_module_t *module,
                                        const char *name,
                                        boo_function_t **out_function);
const char *boo_function_name(const boo_function_t *function);
size_t boo_function_input_count(const boo_function_t *function);
size_t boo_function_result_count(const boo_function_t *function);
/* Fills `info` (pointers valid while the module lives). */
boo_status_t boo_function_input(const boo_function_t *function, size_t index,
                                boo_tensor_info_t *info);
boo_status_t boo_function_result(const boo_function_t *function, size_t index,
                                 boo_tensor_info_t *info);
/* The number of kernel launches one invocation makes on this device. */
size_t boo_function_launch_count(const boo_function_t *function);

/* Runs the function: reads `inputs` (one buffer per input, at least the
 * tensor's bytes, on the module's device) and writes `results`. Checks the
 * counts, sizes and devices and names the offending argument. Asynchronous
 * on GPUs (ordered on the device's stream; call boo_device_synchronize),
 * complete on return on the CPU and the emulator. On the emulator, a launch
 * whose checks fired fails the call with BOO_STATUS_INTERNAL and a message
 * with the error count and the first errors (the results are then
 * unreliable). */
boo_status_t boo_function_invoke(boo_function_t *function,
                                 boo_buffer_t *const *inputs,
                                 size_t input_count,
                                 boo_buffer_t *const *results,
                                 size_t result_count);

/* A tensor in caller-owned memory: a host pointer on "cpu" and "emu:*", a
 * device pointer on "hip" (memory the caller allocated with HIP, e.g. a
 * PyTorch tensor's data). `dims` and `strides` (in elements, not bytes)
 * have `rank` entries; `strides` NULL means dense row-major. */
typedef struct boo_tensor_view {
  void *data;
  boo_dtype_t dtype;
  size_t rank;
  const int64_t *dims;
  const int64_t *strides;
} boo_tensor_view_t;

/* boo_function_invoke on caller-owned memory, without copies: each view
 * must have the argument's dtype and dims, and strides that make it dense
 * row-major (a dim of extent 1 may have any stride), which is how the
 * compiled code reads it. A view that breaks this is BOO_STATUS_INVALID_
 * ARGUMENT naming the argument, the expected and the given shape or
 * strides; the caller then makes the tensor dense (or permutes its dims to
 * the function's layout: a channels-last NCHW tensor is a dense NHWC one).
 * Results may alias nothing the call reads. Ordering and completion as for
 * boo_function_invoke. */
boo_status_t boo_function_invoke_views(boo_function_t *function,
                                       const boo_tensor_view_t *inputs,
                                       size_t input_count,
                                       const boo_tensor_view_t *results,
                                       size_t result_count);

/*===--------------------------------------------------------------------===*
 * Profiles (emulator devices)
 *===--------------------------------------------------------------------===*/

/* What one launch executed, counted by the emulator from every lane's
 * accesses (docs/Emulator.md, "Profile"). The counts are of the profiled
 * workgroups. Instructions are wave instructions: the lanes of one wave
 * that execute the same load, store or matrix operation count once. */
typedef struct boo_launch_profile {
  const char *kernel;           /* the kernel's name */
  uint64_t workgroups;          /* in the launch's grid */
  uint64_t profiled_workgroups; /* run and counted */
  uint64_t waves;               /* of the profiled workgroups */
  uint64_t mma_instructions;
  uint64_t mma_flops; /* 2 * m * n * k per instruction */
  uint64_t global_load_instructions;
  uint64_t global_load_bytes;
  uint64_t global_store_instructions;
  uint64_t global_store_bytes;
  /* Per global instruction, the 128-byte lines its lanes touch; summed. */
  uint64_t global_lines;
  uint64_t lds_load_instructions;
  uint64_t lds_store_instructions;
  uint64_t lds_bytes;
  /* LDS cycles of the instructions with their bank conflicts, and what
   * they would take without (boo/LdsBankModel.h). */
  uint64_t lds_cycles;
  uint64_t lds_conflict_free_cycles;
} boo_launch_profile_t;

/* Emulator devices: profiles the launches from now on. With
 * `max_workgroups` > 0 a launch runs at most that many of its workgroups,
 * spread evenly over its grid, and the results are incomplete (for
 * estimates: docs/PerfModel.md); 0 runs them all. Other devices:
 * BOO_STATUS_INVALID_ARGUMENT. */
boo_status_t boo_device_profile_begin(boo_device_t *device,
                                      uint64_t max_workgroups);
/* Ends profiling: `*out_profiles` is the profiles of the launches since
 * boo_device_profile_begin, in launch order (`*out_count` of them), valid
 * until the next begin or until the device is closed. Without a begin:
 * BOO_STATUS_INVALID_ARGUMENT. */
boo_status_t boo_device_profile_end(boo_device_t *device,
                                    const boo_launch_profile_t **out_profiles,
                                    size_t *out_count);

/*===--------------------------------------------------------------------===*
 * Timing
 *===--------------------------------------------------------------------===*/

typedef struct boo_event boo_event_t;

/* Device events on GPUs (hipEvent), a steady clock on the CPU. */
boo_status_t boo_event_create(boo_device_t *device, boo_event_t **out_event);
void boo_event_free(boo_event_t *event);
/* Records the event in the device's stream (after all work submitted). */
boo_status_t boo_event_record(boo_event_t *event);
/* Milliseconds between two recorded events; waits for `end`. */
boo_status_t boo_event_elapsed_ms(const boo_event_t *start,
                                  const boo_event_t *end, double *out_ms);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BOO_RUNTIME_H */
