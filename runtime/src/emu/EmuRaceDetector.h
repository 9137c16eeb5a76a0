//===- EmuRaceDetector.h - LDS data races within a workgroup ----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Work-items of a workgroup only order their LDS accesses through barriers:
// between two completed barriers (an "epoch") they run in any order. So a
// store to a byte conflicts with another work-item's load or store of that
// byte in the same epoch, and a load with another work-item's store. The
// detector keeps, per LDS byte, the epoch and work-item of its last store
// and of up to two loads in that epoch (two distinct readers are enough to
// name "another work-item" for any later writer).
//
// Epoch numbers grow for the detector's whole life (one per worker thread,
// reused across workgroups and launches), so a new epoch or workgroup costs
// an increment, not a clear of the shadow.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMURACEDETECTOR_H
#define BOO_RUNTIME_SRC_EMURACEDETECTOR_H

#include <cstdint>
#include <vector>

namespace boo {
namespace emu {

/// A conflicting pair of accesses.
struct LdsRace {
  bool isStore;      // the access that found the conflict
  uint32_t other;    // the earlier access's work-item
  bool otherIsStore; // the earlier access's kind
  uint64_t byteOffset;
};

class RaceDetector {
public:
  /// Starts a workgroup whose LDS has `bytes` bytes (a fresh epoch).
  void beginWorkgroup(uint64_t bytes);
  /// A barrier completed.
  void beginEpoch() { advance(); }

  /// Records an access of work-item `item` (< 65535) to [offset, offset +
  /// bytes), which lies inside the LDS `lds`. Stores are reported after they
  /// happened: a store of the byte value an earlier store of this interval
  /// wrote is benign (as in CUDA racecheck: lanes of a wave that all write
  /// the same result, as upstream's all-reduce does); any other store after
  /// another work-item's access, and a load after another work-item's store,
  /// are races. Returns true and fills `race` for the access's first
  /// conflicting byte.
  bool access(uint32_t item, bool isStore, uint64_t offset, uint64_t bytes,
              const uint8_t *lds, LdsRace &race) {
    Cell *cell = cells.data() + offset;
    uint16_t self = uint16_t(item);
    bool found = false;
    for (uint64_t i = 0; i < bytes; ++i, ++cell) {
      if (isStore) {
        uint8_t value = lds[offset + i];
        if (cell->writeEpoch == epoch && cell->writer != self) {
          if (!found && cell->value != value) {
            race = {true, cell->writer, true, offset + i};
            found = true;
          }
        } else if (!found && cell->readEpoch == epoch) {
          uint16_t reader =
              cell->reader != self ? cell->reader : cell->otherReader;
          if (reader != kNobody) {
            race = {true, reader, false, offset + i};
            found = true;
          }
        }
        if (cell->writeEpoch != epoch || cell->value != value)
          cell->writer = self;
        cell->writeEpoch = epoch;
        cell->value = value;
      } else {
        if (!found && cell->writeEpoch == epoch && cell->writer != self) {
          race = {false, cell->writer, true, offset + i};
          found = true;
        }
        if (cell->readEpoch != epoch) {
          cell->readEpoch = epoch;
          cell->reader = self;
          cell->otherReader = kNobody;
        } else if (cell->reader != self && cell->otherReader == kNobody) {
          cell->otherReader = self;
        }
      }
    }
    return found;
  }

private:
  static constexpr uint16_t kNobody = 0xFFFF;

  struct Cell {
    uint32_t writeEpoch = 0, readEpoch = 0;
    uint16_t writer = kNobody, reader = kNobody, otherReader = kNobody;
    uint8_t value = 0; // the byte the last store of writeEpoch wrote
  };

  void advance();

  std::vector<Cell> cells;
  /// The current epoch; 0 is never current, so fresh cells are "old".
  uint32_t epoch = 0;
};

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMURACEDETECTOR_H
