// Interned TensorTypes, so that e-classes store and compare a 32-bit TypeId.
#ifndef EGRET_EGRAPH_TYPE_TABLE_H_
#define EGRET_EGRAPH_TYPE_TABLE_H_

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "egret/egraph/id.h"
#include "egret/graph/tensor_type.h"

namespace egret {

class TypeTable {
 public:
  // Equal types give equal ids.
  TypeId Intern(const TensorType& type);
  // The type with this id; the reference stays valid as the table grows.
  const TensorType& Get(TypeId id) const { return types_[id]; }
  size_t size() const { return types_.size(); }
  size_t ApproxBytes() const;

 private:
  std::deque<TensorType> types_;
  absl::flat_hash_map<TensorType, TypeId> ids_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_TYPE_TABLE_H_
