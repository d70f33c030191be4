// Metrics that are not Ray's: the easier variants the Ray-named metrics used to be
// (a Get answered from this process's memory, a put nobody waits for, 100 MiB puts),
// and actor creation, which Ray's set does not time.

#include <memory>
#include <string>
#include <vector>

#include "metric.h"
#include "remote.h"

namespace ray::bench {

std::vector<MetricDef> ExtraMetrics() {
  using Kind = MetricDef::Kind;
  std::vector<MetricDef> m;
  auto add = [&](std::string name, double per_call, std::function<Prepared(const Machine&)> make) {
    m.push_back(MetricDef{std::move(name), Kind::kExtra, per_call, std::move(make), ""});
  };
  // Ray's body, but this process keeps the object it put: no message at all.
  add("single_client_get_calls_cached", 1, [](const Machine&) {
    auto value = std::make_shared<ray::ObjectRef<int>>(ray::Put(0));
    return JustCall([value] { ray::Get(*value); });
  });
  // Ray's body, the put sent and not waited for: the store may not hold it yet.
  add("single_client_put_calls_one_way", 1, [](const Machine&) {
    return JustCall([] { ray::Put(0); });
  });
  // 100 MiB puts (Ray's are 800 MiB), each acknowledged by the store.
  constexpr size_t kHundredMiB = size_t{100} << 20;
  add("single_client_put_gigabytes_100MiB", kHundredMiB / 1e9, [](const Machine&) {
    auto big = std::make_shared<ray::Blob>(std::string(kHundredMiB, 'x'));
    return JustCall([big] { ray::Put(*big); });
  });
  // Ray's body, the object decoded again from this process's memory after the first.
  add("single_client_get_object_containing_10k_refs_cached", 1, [](const Machine&) {
    auto ref = std::make_shared<ray::ObjectRef<std::vector<ray::ObjectRef<int>>>>(
        ray::Task(CreateObjectContainingRef).Remote());
    return JustCall([ref] { ray::Get(*ref); });
  });
  // 10 actors created, each called once, then killed.
  add("actor_creations", 10, [](const Machine&) {
    return JustCall([] {
      std::vector<ray::ActorHandle<Actor>> actors;
      std::vector<ray::ObjectRef<std::string>> refs;
      for (int i = 0; i < 10; ++i) {
        actors.push_back(ray::Actor(Actor::Create).Remote());
        refs.push_back(actors.back().Task(&Actor::SmallValue).Remote());
      }
      ray::Get(refs);
      KillAll(actors);
    });
  });
  return m;
}

}  // namespace ray::bench
