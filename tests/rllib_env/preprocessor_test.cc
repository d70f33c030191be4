// Preprocessor: RLlib's default preprocessors for every space kind, and the errors an
// observation that does not fit its space gets.

#include "runtime/rllib/env/preprocessor.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ray::rllib {
namespace {

TEST(PreprocessorTest, ABoxPassesAsItIs) {
  Preprocessor p(Box::Uniform(-1, 1, {2, 2}));
  EXPECT_EQ(p.raw_size(), 4);
  EXPECT_EQ(p.size(), 4);
  EXPECT_EQ(p.Transform({0.1f, 0.2f, 0.3f, 0.4f}), (Observation{0.1f, 0.2f, 0.3f, 0.4f}));
}

TEST(PreprocessorTest, ADiscreteBecomesOneHot) {
  Preprocessor p(Discrete(3));
  EXPECT_EQ(p.raw_size(), 1);
  EXPECT_EQ(p.size(), 3);
  EXPECT_EQ(p.Transform({2}), (Observation{0, 0, 1}));
  EXPECT_EQ(p.Transform({0}), (Observation{1, 0, 0}));
}

// RLlib's TupleFlatteningPreprocessor / DictFlatteningPreprocessor: each part
// preprocessed, one after another, nested spaces too; a Dict's parts in key order.
TEST(PreprocessorTest, TuplesAndDictsAreFlattenedPartByPart) {
  Preprocessor tuple(Tuple({Discrete(2), Box::Uniform(0, 1, {2}), Discrete(3)}));
  EXPECT_EQ(tuple.raw_size(), 4);
  EXPECT_EQ(tuple.size(), 7);
  EXPECT_EQ(tuple.Transform({1, 0.5f, 0.25f, 0}), (Observation{0, 1, 0.5f, 0.25f, 1, 0, 0}));

  Preprocessor dict(Dict({{"b", Tuple({Discrete(2), Box::Uniform(0, 1, {1})})}, {"a", Discrete(2)}}));
  EXPECT_EQ(dict.raw_size(), 3);
  EXPECT_EQ(dict.size(), 5);
  // Raw layout [a, b.0, b.1]: a = 1, b = (0, 0.75).
  EXPECT_EQ(dict.Transform({1, 0, 0.75f}), (Observation{0, 1, 1, 0, 0.75f}));
}

TEST(PreprocessorTest, AnObservationThatDoesNotFitNamesTheSpace) {
  Preprocessor p(Tuple({Box::Uniform(0, 1, {1}), Discrete(2)}));
  auto message = [&](Observation raw) {
    try {
      p.Transform(std::move(raw));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({0.5f}).find("1 floats does not fit its space Tuple(Box(1,), Discrete(2)) (2 floats)"),
            std::string::npos)
      << message({0.5f});
  const std::string bad_index = message({0.5f, 2});
  EXPECT_NE(bad_index.find("is not an index of Discrete(2)"), std::string::npos) << bad_index;
  EXPECT_NE(bad_index.find("(float 1)"), std::string::npos) << bad_index;
  EXPECT_NE(message({0.5f, 0.5f}), "accepted") << "a fraction is no index";
  EXPECT_NE(message({0.5f, -1}), "accepted");
  EXPECT_EQ(message({0.5f, 1}), "accepted");
  EXPECT_THROW(Preprocessor(Box::Uniform(0, 1, {2})).Transform({1}), std::invalid_argument)
      << "a Box's size is checked too";
}

}  // namespace
}  // namespace ray::rllib
