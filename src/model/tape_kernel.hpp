// Runs a Tape over a block of rows for many candidates. Private to model/.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <utility>
#include <vector>

#include "lincomb_kernel.hpp"
#include "perfit/model/tape.hpp"

namespace perfit::model::detail {

// Scratch for TapeKernel::run. Eigen peels scalar iterations until the destination is aligned,
// and its scalar and packet exp/log differ in the last bit, so a row's value depended on where
// malloc put an unaligned buffer, and a fit on the size of the environment. Aligned buffers
// (and blocks a multiple of the packet) keep every row on the same path in every run.
using Scratch = std::vector<double, Eigen::aligned_allocator<double>>;

// Per column, the rows [first, last) outside which it is 0 (model/evaluator.hpp).
using RowSpan = std::pair<std::size_t, std::size_t>;

class TapeKernel {
 public:
  explicit TapeKernel(const Tape& tape);

  std::size_t slots() const { return code_.size(); }
  // Per-candidate scalars (constants and param-only slots) for pop (n_params x n), laid out
  // candidate-major: scal[j*slots() + slot].
  void scalars(const Eigen::Ref<const Eigen::MatrixXd>& pop, std::vector<double>& scal) const;
  // Doubles of scratch a block of `block` rows needs.
  std::size_t scratch_size(std::size_t block) const { return (n_buffers_ + 1) * block; }

  // Evaluates rows [begin, begin+n) (n <= block) for candidates [0, n_cand). Per candidate it
  // calls either sink.values(j, pred) with n predictions, or, when the result is a lincomb,
  // sink.lincomb(j, terms, n_terms, offset) so that the caller runs lincomb_rows with its
  // own epilogue (e.g. the cost) and predictions are never stored. cols[k]: column k, row 0;
  // spans[k] (null: none known) where column k can be nonzero.
  template <class Sink>
  void run(const double* const* cols, const RowSpan* spans, std::size_t begin, std::size_t n,
           std::size_t block, const double* scal, std::size_t n_cand, double* scratch,
           Sink& sink) const {
    const Rows at{cols, spans, begin, n, block};
    for (const std::int32_t s : data_slots_) exec(s, at, nullptr, scratch);
    const bool fused = code_[result_].op == OpCode::lincomb;
    LinResolved r[kMaxLinTerms];
    for (std::size_t j = 0; j < n_cand; ++j) {
      const double* sc = scal + j * code_.size();
      for (const std::int32_t s : both_slots_) {
        if (fused && s == result_) break;  // the result is the last instruction
        exec(s, at, sc, scratch);
      }
      if (fused) {
        std::size_t nr = 0;
        const double offset = resolve(code_[result_], at, sc, scratch, r, nr);
        sink.lincomb(j, r, nr, offset);
      } else {
        sink.values(j, result_pointer(cols, begin, n, block, sc, scratch));
      }
    }
  }

 private:
  struct Operand {
    const double* vec;  // null for a scalar
    double s;
  };
  Operand operand(std::int32_t slot, const double* const* cols, std::size_t begin,
                  std::size_t block, const double* sc, const double* scratch) const;
  // The block of rows a run evaluates.
  struct Rows {
    const double* const* cols;
    const RowSpan* spans;
    std::size_t begin, n, block;
  };
  void exec(std::int32_t slot, const Rows& at, const double* sc, double* scratch) const;
  const double* result_pointer(const double* const* cols, std::size_t begin, std::size_t n,
                               std::size_t block, const double* sc, double* scratch) const;
  // Resolves a lincomb's terms for one candidate; returns the scalar offset.
  double resolve(const Instr& in, const Rows& at, const double* sc, const double* scratch,
                 LinResolved* r, std::size_t& nr) const;

  std::vector<Instr> code_;
  std::vector<LinTerm> terms_;
  std::vector<std::int32_t> buffer_of_;  // slot -> scratch buffer index, -1 if none
  std::vector<std::int32_t> scalar_slots_, data_slots_, both_slots_;
  std::int32_t result_;
  std::size_t n_buffers_ = 0;
};

}  // namespace perfit::model::detail
