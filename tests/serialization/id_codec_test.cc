#include "runtime/serialization/id_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "runtime/serialization/protocol.h"

namespace ray::protocol {
namespace {

// Ids of different kinds are different types: one is never taken for another.
static_assert(!std::is_convertible_v<TaskId, ActorId>);
static_assert(!std::is_convertible_v<ActorId, TaskId>);
static_assert(!std::is_convertible_v<NodeId, WorkerId>);
static_assert(!std::is_convertible_v<WorkerId, NodeId>);
static_assert(!std::is_convertible_v<TaskId, ObjectId>);
static_assert(!std::is_convertible_v<ObjectId, TaskId>);
static_assert(!std::is_convertible_v<std::string, ObjectId>);

struct AllIds {
  JobId job;
  TaskId task;
  ActorId actor;
  NodeId node;
  WorkerId worker;
  ObjectId object;
  std::vector<ObjectId> objects;
  MSGPACK_DEFINE_ARRAY(job, task, actor, node, worker, object, objects);
};

// A body of one field: the msgpack of `field` (any type) in a one-element array.
template <typename T>
std::string OneField(const T& field) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(1);
  pk.pack(field);
  return std::string(buf.data(), buf.size());
}

struct OneObject {
  ObjectId id;
  MSGPACK_DEFINE_ARRAY(id);
};
struct OneActor {
  ActorId id;
  MSGPACK_DEFINE_ARRAY(id);
};

std::string Bin(size_t n) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(1);
  pk.pack_bin(n);
  std::string bytes(n, 'x');
  pk.pack_bin_body(bytes.data(), n);
  return std::string(buf.data(), buf.size());
}

TEST(IdCodecTest, EveryKindOfIdRoundTrips) {
  AllIds in;
  in.job = JobId::FromRandom();
  in.task = NewTaskId(in.job);
  in.actor = ActorId::FromRandom();
  in.node = NodeId::FromRandom();
  in.worker = WorkerId::FromRandom();
  in.object = ObjectId::ForTaskReturn(in.task, 3);
  in.objects = {ObjectId::ForPut(in.task, 1), ObjectId()};
  const std::string frame = Encode(MessageType::kCall, 0, in);
  auto env = DecodeEnvelope(frame);  // (its body points into the frame)
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  auto out = DecodeBody<AllIds>(env->body, "ids");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->job, in.job);
  EXPECT_EQ(out->task, in.task);
  EXPECT_EQ(out->actor, in.actor);
  EXPECT_EQ(out->node, in.node);
  EXPECT_EQ(out->worker, in.worker);
  EXPECT_EQ(out->object, in.object);
  EXPECT_EQ(out->objects, in.objects);
  EXPECT_EQ(out->object.Task(), in.task);  // the derivation survives the trip
}

TEST(IdCodecTest, AnIdTravelsAsABinOfExactlyItsSize) {
  OneObject one{ObjectId::FromRandom()};
  const std::string frame = Encode(MessageType::kCall, 0, one);
  auto env = DecodeEnvelope(frame);
  ASSERT_TRUE(env.ok());
  // [bin8 of 20 bytes]
  EXPECT_EQ(env->body, std::string("\x91\xc4\x14", 3) + one.id.Binary());
}

TEST(IdCodecTest, AnIdOfTheWrongSizeIsRefusedNamingItsKindAndSize) {
  for (size_t n : {0u, 15u, 19u, 21u, 40u}) {
    auto out = DecodeBody<OneObject>(Bin(n), "PullObject");
    ASSERT_FALSE(out.ok()) << n << " bytes";
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find("PullObject"), std::string::npos)
        << out.status().message();
    EXPECT_NE(out.status().message().find(std::to_string(n) + "-byte object id"), std::string::npos)
        << out.status().message();
  }
  EXPECT_TRUE(DecodeBody<OneObject>(Bin(ObjectId::kSize), "PullObject").ok());
  // An actor id has 16 bytes: an object id's 20 are refused.
  auto actor = DecodeBody<OneActor>(Bin(ObjectId::kSize), "ActorKill");
  ASSERT_FALSE(actor.ok());
  EXPECT_NE(actor.status().message().find("20-byte actor id (expected 16 bytes)"),
            std::string::npos)
      << actor.status().message();
  EXPECT_TRUE(DecodeBody<OneActor>(Bin(ActorId::kSize), "ActorKill").ok());
}

TEST(IdCodecTest, AnIdThatIsNotBinaryIsRefused) {
  // The old encoding (a msgpack str of the right length) and other types.
  for (const std::string& body :
       {OneField(std::string(ObjectId::kSize, 'x')), OneField(42), OneField(std::vector<int>{})}) {
    auto out = DecodeBody<OneObject>(body, "GetRequest");
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("object id that is not binary"), std::string::npos)
        << out.status().message();
  }
}

}  // namespace
}  // namespace ray::protocol
