// Map-reduce word count: mappers count words in their share of the text, reducers
// merge the counts of the words that hash to them.
//   ray run word_count.so [FILE]   prints the ten most common words

#include <ray/api.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using Counts = std::map<std::string, int>;

constexpr int kReducers = 3;

// Counts the words of one chunk, split into one map per reducer.
std::vector<Counts> Map(std::string text) {
  std::vector<Counts> parts(kReducers);
  std::string word;
  auto flush = [&] {
    if (!word.empty()) parts[std::hash<std::string>{}(word) % kReducers][word]++;
    word.clear();
  };
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return parts;
}

Counts Reduce(int reducer, std::vector<std::vector<Counts>> mapped) {
  Counts total;
  for (const auto& parts : mapped) {
    for (const auto& [w, n] : parts[reducer]) total[w] += n;
  }
  return total;
}

RAY_REMOTE(Map, Reduce);

static const char* kDefaultText =
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was "
    "the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it "
    "was the season of Light, it was the season of Darkness, it was the spring of hope, it was "
    "the winter of despair, we had everything before us, we had nothing before us, we were all "
    "going direct to Heaven, we were all going direct the other way";

RAY_MAIN(int argc, char** argv) {
  std::string text = kDefaultText;
  if (argc > 1) {
    std::ifstream in(argv[1]);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[1]);
      return 2;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  constexpr int kMappers = 4;
  std::vector<ray::ObjectRef<std::vector<Counts>>> mapped;
  size_t chunk = text.size() / kMappers + 1;
  for (int m = 0; m < kMappers; ++m) {
    // Split on a space so no word is cut in two.
    size_t begin = std::min(text.size(), m * chunk), end = std::min(text.size(), (m + 1) * chunk);
    while (begin > 0 && begin < text.size() && text[begin - 1] != ' ') ++begin;
    while (end < text.size() && text[end - 1] != ' ') ++end;
    mapped.push_back(ray::Task(Map).Remote(text.substr(begin, end - begin)));
  }
  std::vector<std::vector<Counts>> all;
  for (const auto& m : ray::Get(mapped)) all.push_back(*m);
  std::vector<ray::ObjectRef<Counts>> reduced;
  for (int r = 0; r < kReducers; ++r) reduced.push_back(ray::Task(Reduce).Remote(r, all));
  std::vector<std::pair<int, std::string>> top;
  for (const auto& counts : ray::Get(reduced)) {
    for (const auto& [w, n] : *counts) top.emplace_back(-n, w);
  }
  std::sort(top.begin(), top.end());
  for (size_t i = 0; i < std::min<size_t>(10, top.size()); ++i) {
    std::printf("%-10s %d\n", top[i].second.c_str(), -top[i].first);
  }
  return 0;
}
