// RAY_REMOTE's names for template functions and methods, RAY_REMOTE_NAMED, and the
// splitting of RAY_REMOTE's text into names. Only ray/registry.h is included: it is
// all a plugin needs to register functions.

#include "ray/registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace ri = ray::internal;

template <typename A, typename B>
A Sum(A a, B b) {
  return a + static_cast<A>(b);
}

template <typename T>
T Twice(T x) {
  return x + x;
}

template <typename T>
class Box {
 public:
  static Box* Create(T start) { return new Box{start}; }
  template <typename U>
  T Scale(U by) {
    return value * static_cast<T>(by);
  }
  T Get() const { return value; }
  T value;
};

int Plus(int a, int b) { return a + b; }

RAY_REMOTE(Sum<int, int>, Sum<double, int>, Twice<unsigned int>);
RAY_REMOTE(Box<int>::Create, &Box<int>::Scale<long>, &Box<int>::Get);
RAY_REMOTE_NAMED("sum_doubles", Sum<double, double>);
RAY_REMOTE_NAMED("plus", Plus);
RAY_REMOTE_NAMED("box.get", &Box<long>::Get);

// Calls the registered `name` with msgpack-encoded `args` through the plugin's entry
// point, as the runtime does; returns the result's bytes.
std::string Invoke(const std::string& name, const std::vector<std::string>& args,
                   void* instance = nullptr) {
  std::vector<RayArg> raw;
  for (const auto& a : args) raw.push_back({a.data(), a.size(), nullptr});
  RayResult r = ray_plugin_invoke(name.data(), name.size(), instance, raw.data(), raw.size());
  std::string out(r.data, r.size);
  EXPECT_EQ(r.kind, RAY_OBJECT_VALUE) << name << ": " << out;
  r.free_fn(r.data);
  return out;
}

template <typename T>
T InvokeAs(const std::string& name, const std::vector<std::string>& args) {
  std::string out = Invoke(name, args);
  return ri::Unpack<T>(out.data(), out.size());
}

TEST(SplitNamesTest, CommasInsideTemplateArgumentsBelongToTheName) {
  EXPECT_EQ(ri::SplitNames("Sum<int, int>, Twice<unsigned int>"),
            (std::vector<std::string>{"Sum<int,int>", "Twice<unsigned int>"}));
  EXPECT_EQ(ri::SplitNames("&Box<std::map<int, int> >::Get, F<(1, 2)>, G<a[1, 2]>"),
            (std::vector<std::string>{"Box<std::map<int,int>>::Get", "F<(1,2)>", "G<a[1,2]>"}));
  // A '>' inside parentheses does not close the template argument list.
  EXPECT_EQ(ri::SplitNames("F<(1 > 2)>, G"), (std::vector<std::string>{"F<(1>2)>", "G"}));
}

TEST(SplitNamesTest, OnlyALeadingAmpersandIsDropped) {
  EXPECT_EQ(ri::SplitNames("& Counter::Add"), (std::vector<std::string>{"Counter::Add"}));
  EXPECT_EQ(ri::SplitNames("F<const std::string&>"),
            (std::vector<std::string>{"F<const std::string&>"}));
}

TEST(SplitNamesTest, CountMatchesTheSplit) {
  static_assert(ri::CountArguments("") == 0);
  static_assert(ri::CountArguments("Plus") == 1);
  static_assert(ri::CountArguments("Sum<int, int>, &Box<int>::Get") == 2);
  static_assert(ri::CountArguments("a, F<(1, 2)>, c") == 3);
  for (const char* text : {"a", "a, b", "Sum<int, int>, b, F<G<int, int>, int>"}) {
    EXPECT_EQ(ri::CountArguments(text), ri::SplitNames(text).size()) << text;
  }
  EXPECT_TRUE(ri::SplitNames("").empty());
}

TEST(RegistryTest, TemplateFunctionsAreNamedByTheirNormalizedText) {
  auto& r = ri::Registry::Get();
  EXPECT_TRUE(r.duplicates.empty());
  for (const char* name : {"Sum<int,int>", "Sum<double,int>", "Twice<unsigned int>",
                           "Box<int>::Create", "Box<int>::Scale<long>", "Box<int>::Get"}) {
    EXPECT_TRUE(r.by_name.count(name)) << name;
  }
  EXPECT_EQ(ri::NameOf(&Sum<int, int>), "Sum<int,int>");
  EXPECT_EQ(ri::NameOf(&Sum<double, int>), "Sum<double,int>");
  EXPECT_EQ(ri::NameOf(&Box<int>::Scale<long>), "Box<int>::Scale<long>");
  EXPECT_EQ(r.by_name.at("Box<int>::Create").kind, ri::kFactory);
  EXPECT_EQ(r.by_name.at("Box<int>::Scale<long>").kind, ri::kMethod);
}

TEST(RegistryTest, NamedRegistrationsUseTheGivenName) {
  auto& r = ri::Registry::Get();
  EXPECT_EQ(ri::NameOf(&Sum<double, double>), "sum_doubles");
  EXPECT_EQ(ri::NameOf(&Plus), "plus");
  EXPECT_EQ(ri::NameOf(&Box<long>::Get), "box.get");
  EXPECT_EQ(r.by_name.at("box.get").kind, ri::kMethod);
  EXPECT_FALSE(r.by_name.count("Plus"));
}

TEST(RegistryTest, CallsByName) {
  EXPECT_EQ(InvokeAs<int>("Sum<int,int>", {ri::Pack(2), ri::Pack(40)}), 42);
  EXPECT_EQ(InvokeAs<double>("Sum<double,int>", {ri::Pack(0.5), ri::Pack(2)}), 2.5);
  EXPECT_EQ(InvokeAs<unsigned>("Twice<unsigned int>", {ri::Pack(21u)}), 42u);
  EXPECT_EQ(InvokeAs<double>("sum_doubles", {ri::Pack(0.25), ri::Pack(0.5)}), 0.75);
  EXPECT_EQ(InvokeAs<int>("plus", {ri::Pack(1), ri::Pack(2)}), 3);
}

TEST(RegistryTest, TemplateActorMethodsByName) {
  std::string start = ri::Pack(7);
  RayArg args[] = {{start.data(), start.size(), nullptr}};
  RayResult created = ray_plugin_invoke("Box<int>::Create", 16, nullptr, args, 1);
  ASSERT_NE(created.instance, nullptr);
  created.free_fn(created.data);
  std::string by = ri::Pack(3L);
  std::string out = Invoke("Box<int>::Scale<long>", {by}, created.instance);
  EXPECT_EQ(ri::Unpack<int>(out.data(), out.size()), 21);
  out = Invoke("Box<int>::Get", {}, created.instance);
  EXPECT_EQ(ri::Unpack<int>(out.data(), out.size()), 7);
  ray_plugin_destroy("Box<int>::Create", 16, created.instance);
}

}  // namespace
