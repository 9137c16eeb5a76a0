//===- EmuProfile.cpp - What an emulated launch executes ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "EmuProfile.h"

#include <algorithm>

using namespace boo::emu;

void boo::emu::addCounters(ProfileCounters &to, const ProfileCounters &from) {
  to.waves += from.waves;
  to.mma_instructions += from.mma_instructions;
  to.mma_flops += from.mma_flops;
  to.global_load_instructions += from.global_load_instructions;
  to.global_load_bytes += from.global_load_bytes;
  to.global_store_instructions += from.global_store_instructions;
  to.global_store_bytes += from.global_store_bytes;
  to.global_lines += from.global_lines;
  to.lds_load_instructions += from.lds_load_instructions;
  to.lds_store_instructions += from.lds_store_instructions;
  to.lds_bytes += from.lds_bytes;
  to.lds_cycles += from.lds_cycles;
  to.lds_conflict_free_cycles += from.lds_conflict_free_cycles;
}

void WorkgroupProfiler::begin(uint32_t items) {
  counters = ProfileCounters{};
  open.clear();
  if (executions.size() < items)
    executions.resize(items);
  for (uint32_t i = 0; i < items; ++i)
    executions[i].clear();
}

void WorkgroupProfiler::recordAccess(uint32_t item, uint32_t wave,
                                     uint32_t lane, uint32_t liveLanes,
                                     int32_t site, bool isStore, int32_t buffer,
                                     int64_t byteOffset, int64_t bytes) {
  if (site < 0)
    return;
  std::vector<uint32_t> &counts = executions[item];
  if (counts.size() <= size_t(site))
    counts.resize(size_t(site) + 1, 0);
  uint64_t execution = counts[size_t(site)]++;
  // A wider access is several instructions on the GPU (RDNA3's 32-byte
  // WMMA fragments are two ds_read_b128): one per piece.
  int64_t pieces = bytes > kMaxAccessBytes
                       ? (bytes + kMaxAccessBytes - 1) / kMaxAccessBytes
                       : 1;
  for (int64_t piece = 0; piece < pieces; ++piece) {
    int64_t offset = byteOffset + piece * kMaxAccessBytes;
    int64_t size = pieces == 1 ? bytes
                               : std::min(kMaxAccessBytes,
                                          bytes - piece * kMaxAccessBytes);
    // 6 bits of wave (at most 1024 / 32), 6 of piece, 20 of site, 32 of
    // execution.
    uint64_t key = (uint64_t(wave & 0x3F) << 58) |
                   (uint64_t(piece & 0x3F) << 52) |
                   (uint64_t(site & 0xFFFFF) << 32) | (execution & 0xFFFFFFFFu);
    Instruction &instruction = open[key];
    instruction.isStore = isStore;
    instruction.buffer = buffer;
    instruction.lanes.push_back({lane, offset, size});
    if (instruction.lanes.size() >= liveLanes) {
      count(instruction);
      open.erase(key);
    }
  }
}

void WorkgroupProfiler::flush() {
  for (auto &[key, instruction] : open)
    count(instruction);
  open.clear();
}

void WorkgroupProfiler::recordMma(int64_t m, int64_t n, int64_t k) {
  ++counters.mma_instructions;
  counters.mma_flops += uint64_t(2 * m * n * k);
}

void WorkgroupProfiler::count(Instruction &instruction) {
  uint64_t bytes = 0;
  for (const lds::LaneAccess &a : instruction.lanes)
    bytes += uint64_t(a.bytes);
  if (instruction.buffer < 0) {
    (instruction.isStore ? counters.lds_store_instructions
                         : counters.lds_load_instructions) += 1;
    counters.lds_bytes += bytes;
    // The instruction is done: the model may have its lanes.
    lds::Cycles cycles = lds::countCycles(std::move(instruction.lanes));
    counters.lds_cycles += uint64_t(cycles.actual);
    counters.lds_conflict_free_cycles += uint64_t(cycles.conflictFree);
    return;
  }
  if (instruction.isStore) {
    ++counters.global_store_instructions;
    counters.global_store_bytes += bytes;
  } else {
    ++counters.global_load_instructions;
    counters.global_load_bytes += bytes;
  }
  // The distinct lines the lanes touch.
  std::vector<int64_t> &lines = lineScratch;
  lines.clear();
  for (const lds::LaneAccess &a : instruction.lanes) {
    int64_t last = a.byteOffset + std::max<int64_t>(a.bytes, 1) - 1;
    for (int64_t line = a.byteOffset / kGlobalLineBytes;
         line <= last / kGlobalLineBytes; ++line)
      lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  counters.global_lines +=
      uint64_t(std::unique(lines.begin(), lines.end()) - lines.begin());
}
