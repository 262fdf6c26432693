// Evaluator throughput: the `generic` model on 1e6 synthetic rows, a population of 64, in
// row-evaluations per second (rows x candidates / s), side by side with a hand-written loop
// of the same formula (handwritten_generic.cpp). Both compute the same costs (checked).
// usage: perfit_bench_evaluator [ROWS=1e6] [POP=64] [REPS=5] [BLOCK_ROWS=default]
// Last line: ratio_vs_handwritten=<evaluator/handwritten, single thread>  (goal >= 0.8)
#include <cmath>
#include <cstdio>
#include <string>

#include "bench_util.hpp"
#include "handwritten_generic.hpp"
#include "perfit/core/rng.hpp"
#include "perfit/data/synth.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"

int main(int argc, char** argv) {
  using namespace perfit;
  const std::size_t rows = argc > 1 ? static_cast<std::size_t>(std::stod(argv[1])) : 1000000;
  const std::size_t pop = argc > 2 ? static_cast<std::size_t>(std::stod(argv[2])) : 64;
  const int reps = argc > 3 ? std::stoi(argv[3]) : 5;
  const std::size_t block = argc > 4 ? static_cast<std::size_t>(std::stod(argv[4])) : 0;

  data::SynthOptions so;
  so.rows = rows;
  data::SynthGenerator gen(data::synth_catalogue()[2], so, 2);
  data::MeasurementTable t = gen.next_chunk(rows);
  t.attributes() = gen.attributes();
  const model::Model m(io::load_model("generic"), t.column_names());

  Rng rng(7);
  Eigen::MatrixXd x(6, static_cast<Eigen::Index>(pop));
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    for (Eigen::Index i = 0; i < 6; ++i) x(i, j) = m.from_unit(i, rng.uniform(0.3, 0.7));
  }
  std::vector<double> params(6 * pop);  // candidate-major for the hand-written loop
  for (std::size_t j = 0; j < pop; ++j) {
    for (std::size_t i = 0; i < 6; ++i)
      params[6 * j + i] = x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
  }
  const std::vector<double> p = t.column("p").to_double(), b = t.column("b").to_double(),
                            d = t.column("d").to_double(), e = t.column("epochs").to_double(),
                            y = t.column("time_s").to_double();
  const double evals = static_cast<double>(rows) * static_cast<double>(pop);

  auto best_of = [&](auto&& f) {
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
      const double t0 = bench::now_s();
      f();
      best = std::min(best, bench::now_s() - t0);
    }
    return best;
  };

  std::vector<double> hand(pop);
  const double t_hand = best_of([&] {
    std::fill(hand.begin(), hand.end(), 0.0);
    bench::handwritten_generic(p.data(), b.data(), d.data(), e.data(), y.data(), rows,
                               params.data(), pop, hand.data());
  });
  Eigen::VectorXd sums(static_cast<Eigen::Index>(pop));
  double t_eval1 = 0, t_eval2 = 0;
  {
    model::EvaluatorOptions eo;
    if (block) eo.block_rows = block;
    eo.threads = 1;
    const model::Evaluator ev(m, t, {}, eo);
    t_eval1 = best_of([&] { ev.residual_sums(x, sums); });
    double worst = 0;
    for (std::size_t j = 0; j < pop; ++j) {
      worst = std::max(worst, std::fabs(sums(static_cast<Eigen::Index>(j)) - hand[j]) / hand[j]);
    }
    std::printf("max relative difference of the costs: %.2e\n", worst);
    eo.threads = 2;
    const model::Evaluator ev2(m, t, {}, eo);
    t_eval2 = best_of([&] { ev2.residual_sums(x, sums); });
  }
  std::printf("rows=%zu population=%zu (best of %d)\n", rows, pop, reps);
  std::printf("handwritten loop (1 thread, -ffast-math): %.3g row-evals/s\n", evals / t_hand);
  std::printf("perfit evaluator (1 thread):              %.3g row-evals/s\n", evals / t_eval1);
  std::printf("perfit evaluator (2 threads):             %.3g row-evals/s\n", evals / t_eval2);
  std::printf("ratio_vs_handwritten=%.3f\n", t_hand / t_eval1);
  return 0;
}
