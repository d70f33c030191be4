// The public API header on its own: no runtime is attached unless a test installs
// a fake RayRuntimeApi table (and removes it again).

#include "ray/api.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

int Plus(int a, int b) { return a + b; }
std::string Fail(std::string what) { throw std::runtime_error(what); }
ray::Returns<int, std::string> Pair(int x) { return {x, std::to_string(x)}; }
void Nothing() {}

class Counter {
 public:
  static Counter* Create(int start) { return new Counter{start}; }
  int Add(int x) { return value += x; }
  int value;
};

int NotRegistered(int x) { return x; }

RAY_REMOTE(Plus, Fail, Pair, Nothing);
RAY_REMOTE(Counter::Create, &Counter::Add);

namespace ri = ray::internal;

template <typename T>
T RoundTrip(const T& value) {
  std::string bytes = ri::Pack(value);
  return ri::Unpack<T>(bytes.data(), bytes.size());
}

// Takes ownership of a plugin result and returns its bytes.
std::string Consume(RayResult r) {
  std::string out(r.data, r.size);
  r.free_fn(r.data);
  return out;
}

TEST(PackTest, RoundTrips) {
  EXPECT_EQ(RoundTrip(42), 42);
  EXPECT_EQ(RoundTrip(INT64_MIN), INT64_MIN);
  EXPECT_EQ(RoundTrip(UINT64_MAX), UINT64_MAX);
  EXPECT_EQ(RoundTrip(0.1), 0.1);
  EXPECT_EQ(RoundTrip(true), true);
  EXPECT_EQ(RoundTrip(std::string("a\0b", 3)), std::string("a\0b", 3));
  using Nested = std::vector<std::map<std::string, std::vector<int>>>;
  Nested nested{{{"a", {1, 2}}, {"b", {}}}, {}};
  EXPECT_EQ(RoundTrip(nested), nested);
  auto t = std::make_tuple(1, std::string("x"), 2.5);
  EXPECT_EQ(RoundTrip(t), t);
  ray::ObjectRef<int> ref(std::string(20, '\x01'));
  EXPECT_EQ(RoundTrip(ref), ref);
  EXPECT_EQ(ref.ID(), "0101010101010101010101010101010101010101");
}

TEST(PackTest, ABlobPacksExactlyAsMsgpackBin) {
  for (size_t n : {0, 1, 255, 256, 65535, 65536, 1 << 20}) {
    ray::Blob blob(std::string(n, 'b'));
    msgpack::sbuffer reference;
    msgpack::pack(reference, blob);
    EXPECT_EQ(ri::Pack(blob), std::string(reference.data(), reference.size())) << n << " bytes";
    EXPECT_EQ(ri::Unpack<ray::Blob>(ri::Pack(blob).data(), ri::Pack(blob).size()).size(), n);
  }
}

TEST(PackTest, UnpackOfGarbageThrowsMsgpackErrors) {
  std::string truncated = ri::Pack(std::string(100, 'x')).substr(0, 10);
  EXPECT_THROW(ri::Unpack<std::string>(truncated.data(), truncated.size()),
               msgpack::unpack_error);
  std::string number = ri::Pack(5);
  EXPECT_THROW(ri::Unpack<std::string>(number.data(), number.size()), msgpack::type_error);
}

TEST(SplitNamesTest, StripsAmpersandsAndSpaces) {
  EXPECT_EQ(ri::SplitNames("Counter::Create, &Counter::Add"),
            (std::vector<std::string>{"Counter::Create", "Counter::Add"}));
  EXPECT_EQ(ri::SplitNames("Plus"), (std::vector<std::string>{"Plus"}));
  EXPECT_EQ(ri::SplitNames("a,\n\t&b ,  c"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(RegistryTest, RegisteredNamesAndKinds) {
  auto& r = ri::Registry::Get();
  ASSERT_TRUE(r.by_name.count("Plus"));
  EXPECT_EQ(r.by_name.at("Plus").kind, ri::kFunction);
  EXPECT_EQ(r.by_name.at("Counter::Create").kind, ri::kFactory);
  EXPECT_EQ(r.by_name.at("Counter::Add").kind, ri::kMethod);
  EXPECT_TRUE(r.duplicates.empty());
  EXPECT_EQ(ri::NameOf(&Plus), "Plus");
  EXPECT_EQ(ri::NameOf(&Counter::Add), "Counter::Add");
  try {
    ri::NameOf(&NotRegistered);
    FAIL() << "expected RayException";
  } catch (const ray::RayException& e) {
    EXPECT_NE(std::string(e.what()).find("RAY_REMOTE"), std::string::npos) << e.what();
  }
}

TEST(InvokeTest, CallsRegisteredFunctions) {
  std::string a = ri::Pack(2), b = ri::Pack(40);
  RayArg args[] = {{a.data(), a.size(), nullptr}, {b.data(), b.size(), nullptr}};
  RayResult r = ray_plugin_invoke("Plus", 4, nullptr, args, 2);
  EXPECT_EQ(r.kind, RAY_OBJECT_VALUE);
  std::string out = Consume(r);
  EXPECT_EQ(ri::Unpack<int>(out.data(), out.size()), 42);

  // Returns<...>: an array of separately packed values.
  std::string x = ri::Pack(7);
  RayArg one[] = {{x.data(), x.size(), nullptr}};
  std::string pair = Consume(ray_plugin_invoke("Pair", 4, nullptr, one, 1));
  auto parts = ri::Unpack<std::vector<std::string>>(pair.data(), pair.size());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(ri::Unpack<int>(parts[0].data(), parts[0].size()), 7);
  EXPECT_EQ(ri::Unpack<std::string>(parts[1].data(), parts[1].size()), "7");

  // void: nil.
  std::string nil = Consume(ray_plugin_invoke("Nothing", 7, nullptr, nullptr, 0));
  EXPECT_EQ(nil, ri::Pack(msgpack::type::nil_t()));
}

TEST(InvokeTest, ActorFactoryAndMethod) {
  std::string start = ri::Pack(10);
  RayArg args[] = {{start.data(), start.size(), nullptr}};
  RayResult created = ray_plugin_invoke("Counter::Create", 15, nullptr, args, 1);
  ASSERT_NE(created.instance, nullptr);
  void* instance = created.instance;
  Consume(created);
  std::string five = ri::Pack(5);
  RayArg add[] = {{five.data(), five.size(), nullptr}};
  std::string out = Consume(ray_plugin_invoke("Counter::Add", 12, instance, add, 1));
  EXPECT_EQ(ri::Unpack<int>(out.data(), out.size()), 15);
  ray_plugin_destroy("Counter::Create", 15, instance);
}

TEST(InvokeTest, ErrorsBecomeErrorResults) {
  auto error_of = [](RayResult r) {
    EXPECT_EQ(r.kind, RAY_OBJECT_ERROR);
    std::string bytes = Consume(r);
    return ri::Unpack<ri::ErrorInfo>(bytes.data(), bytes.size());
  };
  std::string msg = ri::Pack(std::string("boom"));
  RayArg one[] = {{msg.data(), msg.size(), nullptr}};
  auto thrown = error_of(ray_plugin_invoke("Fail", 4, nullptr, one, 1));
  EXPECT_EQ(thrown.kind, ri::kTaskException);
  EXPECT_EQ(thrown.type, "std::runtime_error");
  EXPECT_EQ(thrown.message, "boom");

  auto arity = error_of(ray_plugin_invoke("Plus", 4, nullptr, one, 1));
  EXPECT_EQ(arity.type, "std::invalid_argument");
  EXPECT_NE(arity.message.find("expected 2 arguments, got 1"), std::string::npos);

  auto bad_arg = error_of(ray_plugin_invoke("Fail", 4, nullptr,
                                            std::vector<RayArg>{{"\xc1", 1, nullptr}}.data(), 1));
  EXPECT_EQ(bad_arg.kind, ri::kTaskException);

  auto unknown = error_of(ray_plugin_invoke("Nope", 4, nullptr, nullptr, 0));
  EXPECT_EQ(unknown.type, "ray::UnknownFunction");
  EXPECT_NE(unknown.message.find("'Nope'"), std::string::npos);
}

TEST(BlobTest, RoundTripCopiesWithoutKeepAlive) {
  ray::Blob blob(std::string("hello\0world", 11));
  std::string bytes = ri::Pack(blob);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0xc4);  // msgpack bin8
  ray::Blob back = ri::Unpack<ray::Blob>(bytes.data(), bytes.size());
  EXPECT_EQ(back.str(), std::string("hello\0world", 11));
  // Without a keep-alive the bytes are copied out of the (temporary) buffer.
  EXPECT_TRUE(back.data() < bytes.data() || back.data() >= bytes.data() + bytes.size());

  ray::Blob empty = RoundTrip(ray::Blob(std::string()));
  EXPECT_EQ(empty.size(), 0u);
  ray::Blob big = RoundTrip(ray::Blob(std::string(100000, 'z')));
  EXPECT_EQ(big.str(), std::string(100000, 'z'));
}

TEST(BlobTest, KeepAliveDecodingReferencesTheSource) {
  auto source = std::make_shared<std::string>(ri::Pack(ray::Blob(std::string("payload"))));
  std::shared_ptr<const void> keep = source;
  ray::Blob blob = ri::Unpack<ray::Blob>(source->data(), source->size(), keep);
  EXPECT_EQ(blob.str(), "payload");
  EXPECT_GE(blob.data(), source->data());
  EXPECT_LT(blob.data(), source->data() + source->size());
  EXPECT_EQ(source.use_count(), 3);  // source, keep, and the Blob
  EXPECT_EQ(ri::DecodeKeepAlive(), nullptr) << "the keep-alive must be reset";

  // Blobs nested in containers reference the source too.
  auto many = std::make_shared<std::string>(
      ri::Pack(std::vector<ray::Blob>{ray::Blob(std::string("a")), ray::Blob(std::string("b"))}));
  auto blobs = ri::Unpack<std::vector<ray::Blob>>(many->data(), many->size(), many);
  ASSERT_EQ(blobs.size(), 2u);
  EXPECT_EQ(blobs[1].str(), "b");
  EXPECT_GE(blobs[1].data(), many->data());
  EXPECT_LT(blobs[1].data(), many->data() + many->size());
  std::weak_ptr<std::string> weak = many;
  many.reset();
  EXPECT_FALSE(weak.expired()) << "the blobs keep the source alive";
  blobs.clear();
  EXPECT_TRUE(weak.expired());
}

TEST(BlobTest, WrongTypeThrowsAndResetsKeepAlive) {
  auto source = std::make_shared<std::string>(ri::Pack(std::string("a string, not bin")));
  EXPECT_THROW(ri::Unpack<ray::Blob>(source->data(), source->size(), source),
               msgpack::type_error);
  EXPECT_EQ(ri::DecodeKeepAlive(), nullptr);
}

TEST(ErrorInfoTest, EncodingIsAFiveElementArray) {
  ri::ErrorInfo e{ri::kActorDied, "T", "actor gone", "Counter::Add", "node1 pid=5"};
  std::string bytes = ri::Pack(e);
  msgpack::object_handle oh = msgpack::unpack(bytes.data(), bytes.size());
  ASSERT_EQ(oh.get().type, msgpack::type::ARRAY);
  ASSERT_EQ(oh.get().via.array.size, 5u);
  EXPECT_EQ(oh.get().via.array.ptr[0].as<int>(), ri::kActorDied);
  EXPECT_EQ(oh.get().via.array.ptr[2].as<std::string>(), "actor gone");
  auto back = ri::Unpack<ri::ErrorInfo>(bytes.data(), bytes.size());
  EXPECT_EQ(back.kind, e.kind);
  EXPECT_EQ(back.type, e.type);
  EXPECT_EQ(back.message, e.message);
  EXPECT_EQ(back.task, e.task);
  EXPECT_EQ(back.where, e.where);
}

TEST(ErrorInfoTest, ThrowErrorPicksTheExceptionType) {
  try {
    ri::ThrowError({ri::kTaskException, "ValueError", "bad value", "f", "node pid=1"});
    FAIL();
  } catch (const ray::TaskError& e) {
    EXPECT_EQ(e.type(), "ValueError");
    EXPECT_EQ(e.message(), "bad value");
    EXPECT_EQ(e.task(), "f");
    EXPECT_EQ(e.where(), "node pid=1");
    EXPECT_STREQ(e.what(), "ValueError in task f (node pid=1): bad value");
  }
  EXPECT_THROW(ri::ThrowError({ri::kWorkerCrashed, "", "died", "", ""}), ray::WorkerCrashedError);
  EXPECT_THROW(ri::ThrowError({ri::kActorDied, "", "gone", "", ""}), ray::ActorDiedError);
  EXPECT_THROW(ri::ThrowError({ri::kUnschedulable, "", "no", "", ""}), ray::UnschedulableError);
  try {
    ri::ThrowError({ri::kSystem, "", "system trouble", "", ""});
    FAIL();
  } catch (const ray::TaskError&) {
    FAIL() << "a system error is not a task error";
  } catch (const ray::RayException& e) {
    EXPECT_STREQ(e.what(), "system trouble");
  }
}

// Calls `f` and returns the RayException message it throws ("" if none).
template <typename F>
std::string RayErrorOf(F&& f) {
  try {
    f();
  } catch (const ray::RayException& e) {
    return e.what();
  } catch (...) {
    return "<other exception>";
  }
  return "";
}

TEST(NoRuntimeTest, EveryCallThrowsAHelpfulRayException) {
  ASSERT_EQ(ri::Api(), nullptr);
  ray::ObjectRef<int> ref(std::string(20, 'r'));
  const std::string hint =
      "ray runtime is not attached: run this plugin with `ray run`, or call ray::Init() first";
  EXPECT_EQ(RayErrorOf([&] { ray::Get(ref); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Get(ref, std::chrono::seconds(1)); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Get(std::vector<ray::ObjectRef<int>>{ref}); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Put(5); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Wait(std::vector<ray::ObjectRef<int>>{ref}, 1); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Task(Plus).Remote(1, 2); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::Actor(Counter::Create).Remote(1); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::GetActor<Counter>("c"); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::ClusterResources(); }), hint);
  EXPECT_EQ(RayErrorOf([&] { ray::ActorHandle<Counter>("a").Kill(); }), hint);
  // Wait checks its arguments first.
  EXPECT_THROW(ray::Wait(std::vector<ray::ObjectRef<int>>{ref}, 2), std::invalid_argument);
}

// A stand-in runtime: serves objects from a map and counts releases.
struct FakeRuntime {
  std::map<std::string, std::pair<int32_t, std::shared_ptr<std::string>>> objects;
  int released = 0;
  std::string last_error = "fake failure";

  static FakeRuntime* Self(void* ctx) { return static_cast<FakeRuntime*>(ctx); }
  static int Get(void* ctx, const char* ids, size_t n, int64_t, RayObject* out) {
    for (size_t i = 0; i < n; ++i) {
      auto it = Self(ctx)->objects.find(std::string(ids + i * RAY_OBJECT_ID_SIZE,
                                                    RAY_OBJECT_ID_SIZE));
      if (it == Self(ctx)->objects.end()) {
        out[i] = RayObject{nullptr, 0, RAY_OBJECT_PENDING, nullptr};
      } else {
        out[i] = RayObject{it->second.second->data(), it->second.second->size(),
                           it->second.first, nullptr};
      }
    }
    return 0;
  }
  static void Release(void* ctx, RayObject*, size_t n) {
    Self(ctx)->released += static_cast<int>(n);
  }
  static int FailPut(void*, const char*, size_t, char*) { return 1; }
  static const char* LastError(void* ctx) { return Self(ctx)->last_error.c_str(); }
};

class FakeRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.abi_version = RAY_PLUGIN_ABI_VERSION;
    api_.ctx = &fake_;
    api_.get = &FakeRuntime::Get;
    api_.release = &FakeRuntime::Release;
    api_.put = &FakeRuntime::FailPut;
    api_.last_error = &FakeRuntime::LastError;
    ray_plugin_attach(&api_);
  }
  void TearDown() override { ray_plugin_attach(nullptr); }

  ray::ObjectRef<ray::Blob> AddObject(char tag, int32_t kind, std::string bytes) {
    std::string id(RAY_OBJECT_ID_SIZE, tag);
    fake_.objects[id] = {kind, std::make_shared<std::string>(std::move(bytes))};
    return ray::ObjectRef<ray::Blob>(id);
  }

  FakeRuntime fake_;
  RayRuntimeApi api_{};
};

TEST_F(FakeRuntimeTest, GetOfBlobMapsWithoutCopyingAndReleasesLast) {
  auto ref = AddObject('b', RAY_OBJECT_VALUE, ri::Pack(ray::Blob(std::string(1000, 'q'))));
  const std::string& stored = *fake_.objects.begin()->second.second;
  std::shared_ptr<ray::Blob> blob = ray::Get(ref);
  EXPECT_EQ(blob->size(), 1000u);
  EXPECT_GE(blob->data(), stored.data());
  EXPECT_LT(blob->data(), stored.data() + stored.size());
  EXPECT_EQ(fake_.released, 0) << "released while the Blob still points into it";
  ray::Blob copy = *blob;
  blob.reset();
  EXPECT_EQ(fake_.released, 0);
  copy = ray::Blob();
  EXPECT_EQ(fake_.released, 1);
}

TEST_F(FakeRuntimeTest, GetOfPlainValueReleasesAtOnce) {
  std::string id(RAY_OBJECT_ID_SIZE, 'i');
  fake_.objects[id] = {RAY_OBJECT_VALUE, std::make_shared<std::string>(ri::Pack(99))};
  EXPECT_EQ(*ray::Get(ray::ObjectRef<int>(id)), 99);
  EXPECT_EQ(fake_.released, 1);
}

TEST_F(FakeRuntimeTest, ErrorsPendingAndMismatchedTypes) {
  auto err = AddObject('e', RAY_OBJECT_ERROR,
                       ri::Pack(ri::ErrorInfo{ri::kTaskException, "E", "m", "t", "w"}));
  EXPECT_THROW(ray::Get(err), ray::TaskError);
  EXPECT_THROW(ray::Get(ray::ObjectRef<int>(std::string(20, 'z')), std::chrono::milliseconds(5)),
               ray::GetTimeoutError);
  auto text = AddObject('s', RAY_OBJECT_VALUE, ri::Pack(std::string("not a blob")));
  std::string msg = RayErrorOf([&] { ray::Get(text); });
  EXPECT_NE(msg.find("cannot be decoded as ray::Blob"), std::string::npos) << msg;
  // Every object handed out was released, error paths included.
  EXPECT_EQ(fake_.released, 3);
}

TEST_F(FakeRuntimeTest, RuntimeFailureCarriesLastError) {
  EXPECT_EQ(RayErrorOf([] { ray::Put(1); }), "cannot put object: fake failure");
}

// RuntimeEnv as a JSON container: what it accepts, and what comes back.
TEST(RuntimeEnvJsonTest, JsonValuesAreCheckedAndRoundTrip) {
  ray::RuntimeEnv env;
  for (const char* good : {"0", "-1.5e+3", "true", "null", "\"a\\u00e9\\n\"", "[]", "{}",
                           " {\"a\": [1, {\"b\": \"\\ud83d\\ude00\"}], \"c\": false} "}) {
    EXPECT_NO_THROW(env.SetJsonStr("k", good)) << good;
  }
  for (const char* bad : {"", "{123", "[1,]", "{\"a\" 1}", "01x", "\"\\q\"", "tru", "1 2",
                          "\"\\u12\"", "[1}"}) {
    EXPECT_THROW(env.SetJsonStr("k", bad), ray::RuntimeEnvError) << bad;
  }
  env.SetJsonStr("s", "\"caf\\u00e9 \\ud83d\\ude00\\t\"");
  EXPECT_EQ(env.Get<std::string>("s"), "caf\xc3\xa9 \xf0\x9f\x98\x80\t");
  env.Set("env_vars", std::map<std::string, std::string>{{"A", "1"}, {"B", "x\"y"}});
  env.SetList("plugins", {"/a.so", "/b.so"});
  auto back = ray::RuntimeEnv::Deserialize(env.Serialize());
  EXPECT_EQ(back.Serialize(), env.Serialize());
  EXPECT_EQ((back.Get<std::map<std::string, std::string>>("env_vars")),
            (std::map<std::string, std::string>{{"A", "1"}, {"B", "x\"y"}}));
  EXPECT_EQ(back.Get<std::vector<std::string>>("plugins"),
            (std::vector<std::string>{"/a.so", "/b.so"}));
  EXPECT_THROW(back.Get<std::vector<std::string>>("env_vars"), ray::RuntimeEnvError);
  EXPECT_THROW(ray::RuntimeEnv::Deserialize("[1]"), ray::RuntimeEnvError);
  EXPECT_THROW(ray::RuntimeEnv::Deserialize("{\"a\":}"), ray::RuntimeEnvError);
  EXPECT_EQ(ray::RuntimeEnv().Serialize(), "{}");
  EXPECT_TRUE(ray::RuntimeEnv::Deserialize("{}").Empty());
}

}  // namespace
