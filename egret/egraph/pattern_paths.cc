#include "egret/egraph/pattern_paths.h"

#include <algorithm>
#include <limits>

namespace egret {
namespace {

bool SamePath(const PatternPath& a, const PatternPath& b) {
  if (a.var != b.var || a.op != b.op || a.up.size() != b.up.size()) return false;
  for (size_t i = 0; i < a.up.size(); ++i) {
    if (a.up[i].op != b.up[i].op || a.up[i].operand != b.up[i].operand) return false;
  }
  return true;
}

}  // namespace

std::vector<PatternPath> PatternPaths(const CompiledPattern& pattern) {
  std::vector<PatternPath> paths;
  if (pattern.root_is_var()) return paths;
  const std::vector<MatchInstr>& prog = pattern.program();
  // The Bind whose operands each register holds (none for the root's
  // register 0), and whether a Bind reads the register (an op place) or not
  // (a variable's occurrence).
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> producer(static_cast<size_t>(pattern.num_regs()), kNone);
  std::vector<bool> read(static_cast<size_t>(pattern.num_regs()), false);
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    const MatchInstr& in = prog[pc];
    if (in.kind != MatchInstr::kBind) continue;
    read[in.in] = true;
    for (uint16_t k = 0; k < in.arity; ++k) producer[in.out + k] = pc;
  }
  auto add = [&](bool var, Symbol op, uint16_t reg) {
    PatternPath p;
    p.var = var;
    p.op = op;
    while (producer[reg] != kNone) {
      const MatchInstr& parent = prog[producer[reg]];
      p.up.push_back(PathStep{parent.op, static_cast<uint16_t>(reg - parent.out)});
      reg = parent.in;
    }
    if (std::none_of(paths.begin(), paths.end(),
                     [&](const PatternPath& q) { return SamePath(p, q); }))
      paths.push_back(std::move(p));
  };
  for (const MatchInstr& in : prog) {
    if (in.kind == MatchInstr::kBind) add(false, in.op, in.in);
  }
  for (uint16_t reg = 1; reg < pattern.num_regs(); ++reg) {
    if (!read[reg] && producer[reg] != kNone) add(true, Symbol(), reg);
  }
  return paths;
}

void PathWalker::Begin(size_t num_ids) {
  if (marks_.size() < num_ids) {
    marks_.resize(num_ids + num_ids / 2 + 16, 0);
    root_bits_.resize(marks_.size() / 64 + 1, 0);
  }
  for (Id r : roots_) root_bits_[r >> 6] &= ~(uint64_t{1} << (r & 63));
  roots_.clear();
}

uint32_t PathWalker::NextStamp() {
  if (++stamp_ == 0) {
    std::fill(marks_.begin(), marks_.end(), 0);
    stamp_ = 1;
  }
  return stamp_;
}

void PathWalker::Walk(const EGraph& g, const PatternPath& path, absl::Span<const Id> from) {
  // Parent lists and parent records are scattered: each is prefetched some
  // classes (or parents) ahead of its use.
  constexpr size_t kAhead = 8;
  absl::Span<const Id> level = from;
  for (const PathStep& step : path.up) {
    if (level.empty()) return;
    const uint32_t stamp = NextStamp();
    next_.clear();
    for (size_t i = 0; i < level.size(); ++i) {
      if (i + 2 * kAhead < level.size()) g.PrefetchClassParents(level[i + 2 * kAhead]);
      if (i + kAhead < level.size()) g.PrefetchClassParentList(level[i + kAhead]);
      const Id x = level[i];
      const absl::Span<const NodeIdx> parents = g.ClassParents(x);
      for (size_t j = 0; j < parents.size(); ++j) {
        if (j + 2 < parents.size()) g.PrefetchNode(parents[j + 2]);
        const NodeIdx p = parents[j];
        if (!g.IsLive(p)) continue;
        const ENodeView v = g.Node(p);
        if (v.op != step.op || step.operand >= v.children.size()) continue;
        // Operands are canonical as of the last rebuild; x is canonical now
        // (a union since then may have made it the root of that operand).
        const Id ch = v.children[step.operand];
        if (ch != x && g.Find(ch) != x) continue;
        const Id c = g.NodeClass(p);
        if (c >= marks_.size() || marks_[c] == stamp) continue;
        marks_[c] = stamp;
        next_.push_back(c);
      }
    }
    level_.swap(next_);
    level = level_;
  }
  for (Id r : level) {
    if (r >= marks_.size() || Reached(r)) continue;
    root_bits_[r >> 6] |= uint64_t{1} << (r & 63);
    roots_.push_back(r);
  }
}

}  // namespace egret
