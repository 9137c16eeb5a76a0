//===- EmuFiber.cpp - Stackful coroutines for the SIMT emulator -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "EmuFiber.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

using namespace boo::emu;

namespace {
size_t getPageSize() {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? size_t(size) : 4096;
}
} // namespace

FiberStack::~FiberStack() { release(); }

void FiberStack::release() {
  if (mapping)
    munmap(mapping, mappingBytes);
  mapping = usable = nullptr;
  mappingBytes = usableBytes = 0;
}

FiberStack::FiberStack(FiberStack &&other) noexcept {
  *this = std::move(other);
}

FiberStack &FiberStack::operator=(FiberStack &&other) noexcept {
  std::swap(mapping, other.mapping);
  std::swap(mappingBytes, other.mappingBytes);
  std::swap(usable, other.usable);
  std::swap(usableBytes, other.usableBytes);
  return *this;
}

bool FiberStack::allocate(size_t bytes) {
  size_t page = getPageSize();
  size_t rounded = (bytes + page - 1) / page * page;
  // Untouched pages cost no memory: a kernel's fiber typically touches a
  // few KiB of its stack.
  void *memory = mmap(nullptr, rounded + page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED)
    return false;
  if (mprotect(memory, page, PROT_NONE) != 0) {
    munmap(memory, rounded + page);
    return false;
  }
  release();
  mapping = static_cast<char *>(memory);
  mappingBytes = rounded + page;
  usable = mapping + page;
  usableBytes = rounded;
  return true;
}

#ifndef BOO_EMU_UCONTEXT_FIBERS

// booEmuSwitchFiber(void **saveStackPointer, void *loadStackPointer):
// pushes the callee-saved registers and the floating-point control state on
// the current stack, stores the stack pointer, loads the other one and pops
// the same frame from it. The frame, from the saved stack pointer up:
//   [0] MXCSR (4 bytes), x87 control word (2 bytes), padding
//   [8] r15  [16] r14  [24] r13  [32] r12  [40] rbx  [48] rbp
//   [56] return address
//
// booEmuFiberStart is where a fresh fiber's first switch "returns" to:
// initFiber puts the entry in r13 and its argument in r12.
asm(R"(
  .pushsection .text
  .p2align 4
  .globl booEmuSwitchFiber
  .hidden booEmuSwitchFiber
  .type booEmuSwitchFiber, @function
booEmuSwitchFiber:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size booEmuSwitchFiber, .-booEmuSwitchFiber

  .p2align 4
  .globl booEmuFiberStart
  .hidden booEmuFiberStart
  .type booEmuFiberStart, @function
booEmuFiberStart:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size booEmuFiberStart, .-booEmuFiberStart
  .popsection
)");

extern "C" void booEmuSwitchFiber(void **saveStackPointer,
                                  void *loadStackPointer);
extern "C" void booEmuFiberStart();

void boo::emu::initFiber(FiberContext &context, const FiberStack &stack,
                         FiberEntry entry, void *arg) {
  // booEmuFiberStart runs with the stack pointer 16-byte aligned, so the
  // entry it calls sees the SysV alignment (rsp + 8 aligned).
  uintptr_t top =
      reinterpret_cast<uintptr_t>(stack.getBottom() + stack.getSize()) &
      ~uintptr_t(15);
  auto *frame = reinterpret_cast<uint64_t *>(top - 16 - 8 * 8);
  uint32_t mxcsr;
  uint16_t controlWord;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(controlWord));
  memset(frame, 0, 8 * 8);
  memcpy(reinterpret_cast<char *>(frame), &mxcsr, 4);
  memcpy(reinterpret_cast<char *>(frame) + 4, &controlWord, 2);
  frame[3] = reinterpret_cast<uint64_t>(entry); // r13
  frame[4] = reinterpret_cast<uint64_t>(arg);   // r12
  frame[7] = reinterpret_cast<uint64_t>(&booEmuFiberStart);
  context.stackPointer = frame;
}

void boo::emu::switchFiber(FiberContext &from, const FiberContext &to) {
  booEmuSwitchFiber(&from.stackPointer, to.stackPointer);
}

#else // BOO_EMU_UCONTEXT_FIBERS

namespace {
/// makecontext passes int arguments: the entry and its argument travel as
/// 32-bit halves.
void startUContextFiber(unsigned entryLow, unsigned entryHigh, unsigned argLow,
                        unsigned argHigh) {
  auto join = [](unsigned low, unsigned high) {
    return uintptr_t(low) | uintptr_t(high) << 16 << 16;
  };
  auto entry = reinterpret_cast<FiberEntry>(join(entryLow, entryHigh));
  entry(reinterpret_cast<void *>(join(argLow, argHigh)));
  abort(); // A fiber entry never returns.
}
} // namespace

void boo::emu::initFiber(FiberContext &context, const FiberStack &stack,
                         FiberEntry entry, void *arg) {
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = stack.getBottom();
  context.context.uc_stack.ss_size = stack.getSize();
  context.context.uc_link = nullptr;
  auto entryBits = reinterpret_cast<uintptr_t>(entry);
  auto argBits = reinterpret_cast<uintptr_t>(arg);
  makecontext(&context.context,
              reinterpret_cast<void (*)()>(&startUContextFiber), 4,
              unsigned(entryBits), unsigned(entryBits >> 16 >> 16),
              unsigned(argBits), unsigned(argBits >> 16 >> 16));
}

void boo::emu::switchFiber(FiberContext &from, const FiberContext &to) {
  swapcontext(&from.context, &to.context);
}

#endif // BOO_EMU_UCONTEXT_FIBERS
