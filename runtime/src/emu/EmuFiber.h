//===- EmuFiber.h - Stackful coroutines for the SIMT emulator ---*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Every emulated work-item runs the kernel on its own fiber: a stack and a
// saved register state, switched cooperatively on one thread. On x86-64 a
// switch is a dozen instructions of assembly (EmuFiber.cpp) that save and
// restore only what the SysV ABI makes callee-saved (rbx, rbp, r12-r15, the
// MXCSR control bits and the x87 control word) and swap the stack pointer:
// no system call, unlike swapcontext, which saves the signal mask. Other
// hosts use ucontext.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMUFIBER_H
#define BOO_RUNTIME_SRC_EMUFIBER_H

#include <cstddef>

#if !defined(__x86_64__) || defined(BOO_EMU_FORCE_UCONTEXT)
#define BOO_EMU_UCONTEXT_FIBERS 1
#include <ucontext.h>
#endif

namespace boo {
namespace emu {

/// A saved execution state: where a fiber (or the thread's own stack)
/// resumes.
struct FiberContext {
#ifdef BOO_EMU_UCONTEXT_FIBERS
  ucontext_t context;
#else
  void *stackPointer = nullptr;
#endif
};

/// An mmap'd stack with an inaccessible guard page below it, so that an
/// overflow faults instead of overwriting a neighbour.
class FiberStack {
public:
  static constexpr size_t kDefaultBytes = 256 * 1024;

  FiberStack() = default;
  ~FiberStack();
  FiberStack(FiberStack &&other) noexcept;
  FiberStack &operator=(FiberStack &&other) noexcept;
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;

  /// Maps `bytes` (rounded up to pages) plus the guard page; false when
  /// mmap fails.
  bool allocate(size_t bytes = kDefaultBytes);
  char *getBottom() const { return usable; }
  size_t getSize() const { return usableBytes; }

private:
  void release();

  char *mapping = nullptr;
  size_t mappingBytes = 0;
  char *usable = nullptr;
  size_t usableBytes = 0;
};

using FiberEntry = void (*)(void *arg);

/// Prepares `context` so that switching to it runs `entry(arg)` on `stack`.
/// `entry` must never return: it ends by switching away for good.
void initFiber(FiberContext &context, const FiberStack &stack, FiberEntry entry,
               void *arg);

/// Saves the running state into `from` and resumes `to`. Returns when some
/// fiber switches back to `from`.
void switchFiber(FiberContext &from, const FiberContext &to);

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMUFIBER_H
