#include "egret/egraph/type_table.h"

namespace egret {

TypeId TypeTable::Intern(const TensorType& type) {
  auto [it, inserted] = ids_.try_emplace(type, static_cast<TypeId>(types_.size()));
  if (inserted) types_.push_back(type);
  return it->second;
}

size_t TypeTable::ApproxBytes() const {
  return types_.size() * sizeof(TensorType) +
         ids_.capacity() * (sizeof(TensorType) + sizeof(TypeId) + 1);
}

}  // namespace egret
