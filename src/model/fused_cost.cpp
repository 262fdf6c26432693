#include "fused_cost.hpp"

#include <cmath>
#include <limits>

#include "lincomb_kernel.hpp"

namespace perfit::model::detail {

namespace {

// The cost as an epilogue of the fused lincomb: residuals summed in four packet accumulators
// and the minimum prediction tracked in a fifth, across the whole block; one horizontal
// reduction per block and candidate. Negative predictions make the block's sum +inf; NaN
// propagates through the sum (residual_sums turns it into +inf).
template <Residual kResidual, bool kWeighted>
struct CostEpilogue {
  const double* inv;   // 1/measured, at the block's first row
  const double* y;     // measured
  const double* logy;  // log(measured)
  const double* w;     // weights or null
  Packet acc[4];
  Packet mn;
  double tail = 0.0;
  double tail_min = std::numeric_limits<double>::infinity();

  CostEpilogue(const double* inv_, const double* y_, const double* logy_, const double* w_)
      : inv(inv_), y(y_), logy(logy_), w(w_) {
    using namespace Eigen::internal;
    for (auto& a : acc) a = pset1<Packet>(0.0);
    mn = pset1<Packet>(std::numeric_limits<double>::infinity());
  }

  void chunk(std::size_t i0, const Packet* a) {
    using namespace Eigen::internal;
    const Packet one = pset1<Packet>(1.0);
    for (std::size_t q = 0; q < 4; ++q) {
      const std::size_t i = i0 + q * kPacket;
      const Packet p = a[q];
      mn = pmin(mn, p);
      Packet e;
      if constexpr (kResidual == Residual::rel_sq) {
        e = psub(pmul(p, ploadu<Packet>(inv + i)), one);
        e = pmul(e, e);
      } else if constexpr (kResidual == Residual::ape) {
        e = pabs(psub(pmul(p, ploadu<Packet>(inv + i)), one));
      } else if constexpr (kResidual == Residual::sq) {
        e = psub(p, ploadu<Packet>(y + i));
        e = pmul(e, e);
      } else {
        e = psub(plog(p), ploadu<Packet>(logy + i));
        e = pmul(e, e);
      }
      if constexpr (kWeighted) e = pmul(e, ploadu<Packet>(w + i));
      acc[q] = padd(acc[q], e);
    }
  }

  void scalar(std::size_t i, double p) {
    tail_min = std::min(tail_min, p);
    double e;
    if constexpr (kResidual == Residual::rel_sq) {
      e = (p * inv[i] - 1.0) * (p * inv[i] - 1.0);
    } else if constexpr (kResidual == Residual::ape) {
      e = std::fabs(p * inv[i] - 1.0);
    } else if constexpr (kResidual == Residual::sq) {
      e = (p - y[i]) * (p - y[i]);
    } else {
      e = (std::log(p) - logy[i]) * (std::log(p) - logy[i]);
    }
    if constexpr (kWeighted) e *= w[i];
    tail += e;
  }

  double finish() const {
    using namespace Eigen::internal;
    if (std::min(predux_min(mn), tail_min) < 0.0) return std::numeric_limits<double>::infinity();
    return predux(padd(padd(acc[0], acc[1]), padd(acc[2], acc[3]))) + tail;
  }
};

template <Residual kResidual, bool kWeighted>
double fused_cost(const LinResolved* r, std::size_t nr, double offset, std::size_t n,
                  const double* inv, const double* y, const double* logy, const double* w) {
  CostEpilogue<kResidual, kWeighted> ep(inv, y, logy, w);
  lincomb_rows(r, nr, offset, n, ep);
  return ep.finish();
}

template <Residual kResidual>
double fused_cost(bool weighted, const LinResolved* r, std::size_t nr, double offset, std::size_t n,
                  const double* inv, const double* y, const double* logy, const double* w) {
  return weighted ? fused_cost<kResidual, true>(r, nr, offset, n, inv, y, logy, w)
                  : fused_cost<kResidual, false>(r, nr, offset, n, inv, y, logy, w);
}

}  // namespace

FusedCost fused_cost_for(Residual residual) {
  switch (residual) {
    case Residual::rel_sq:
      return &fused_cost<Residual::rel_sq>;
    case Residual::sq_log:
      return &fused_cost<Residual::sq_log>;
    case Residual::ape:
      return &fused_cost<Residual::ape>;
    case Residual::sq:
      break;
  }
  return &fused_cost<Residual::sq>;
}

}  // namespace perfit::model::detail
