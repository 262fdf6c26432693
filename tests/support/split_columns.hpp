// Runs `work(split)` on `parts` threads at once, each handed its share of a Jacobian's columns
// (perfit::ColumnSplit) with a `share` that sums the matrices over the threads, as ranks holding
// every row sum them over MPI. Returns each thread's answer.
#pragma once

#include <barrier>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

#include "perfit/core/column_split.hpp"

namespace perfit::testing_support {

template <class Answer>
std::vector<Answer> split_columns(int parts,
                                  const std::function<Answer(const ColumnSplit&)>& work) {
  std::barrier sync(parts);
  std::vector<std::vector<double>> slot(static_cast<std::size_t>(parts));
  std::vector<Answer> out(static_cast<std::size_t>(parts));
  std::vector<std::thread> threads;
  for (int part = 0; part < parts; ++part) {
    threads.emplace_back([&, part] {
      ColumnSplit split{part, parts, [&, part](double* data, std::size_t n) {
                          slot[static_cast<std::size_t>(part)].assign(data, data + n);
                          sync.arrive_and_wait();  // every part's matrix is in its slot
                          for (std::size_t i = 0; i < n; ++i) {
                            double sum = 0.0;
                            for (const auto& s : slot) sum += s[i];
                            data[i] = sum;
                          }
                          sync.arrive_and_wait();  // read before any slot is written again
                        }};
      out[static_cast<std::size_t>(part)] = work(split);
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace perfit::testing_support
