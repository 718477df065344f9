#include "lidartwin/viewer/viewer_server.h"

#include <fmt/core.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "lidartwin/viewer/viewer_page.h"

namespace lt::viewer {

namespace {

// The host a request names, without its port ("localhost:8080" -> "localhost", "[::1]:80" ->
// "::1").
std::string HostOf(const std::string& header) {
  if (!header.empty() && header.front() == '[') {
    const size_t close = header.find(']');
    return close == std::string::npos ? header : header.substr(1, close - 1);
  }
  return header.substr(0, header.find(':'));
}

bool IsLocalOrAddress(const std::string& host) {
  if (host == "localhost") return true;
  unsigned char address[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), address) == 1;
}

// True when a request's Range cannot be served from `size` bytes: a start at or beyond the end,
// an end before its start, an empty suffix. httplib 0.11 answered those with a wrapped
// Content-Length (18446744072710315967); RFC 9110 sec. 15.5.17 says 416.
bool RangeUnsatisfiable(const httplib::Request& req, size_t size) {
  for (const auto& [first, last] : req.ranges) {
    if (first < 0 && last <= 0) return true;  // "bytes=-0" or nothing
    if (first >= 0 && static_cast<size_t>(first) >= size) return true;
    if (first >= 0 && last >= 0 && last < first) return true;
  }
  return false;
}

// Connections served at once (each a thread of httplib's pool).
constexpr size_t kWorkers = 32;

void RefuseRange(httplib::Response& res, size_t size) {
  res.status = 416;
  res.set_header("Content-Range", "bytes */" + std::to_string(size));
}

}  // namespace

struct ViewerServer::Impl {
  std::string title;
  Builder build;
  Stale stale;
  httplib::Server server;
  std::mutex mutex;  // one build at a time; requests come from httplib's thread pool
  // The last document built, shared with the responses still sending it (no copy per
  // request). An error is not kept: the next request tries again, so a file made readable
  // (chmod, a new simulation) shows without a restart.
  std::shared_ptr<const std::string> document;

  Expected<std::shared_ptr<const std::string>> Document() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!document || stale()) {
      document.reset();
      auto built = build();
      if (!built.ok()) return built.error();
      document = std::make_shared<const std::string>(std::move(*built));
    }
    return document;
  }
};

ViewerServer::ViewerServer(std::string title, Builder build, Stale stale)
    : impl_(std::make_unique<Impl>()) {
  impl_->title = std::move(title);
  impl_->build = std::move(build);
  impl_->stale = std::move(stale);
  Impl* impl = impl_.get();
  // httplib's default sets SO_REUSEPORT, which lets a second view bind the same port and
  // answer half the requests with its own document. SO_REUSEADDR only: a port in use is an
  // error, a port in TIME_WAIT after a restart is not.
  // Slow clients (issue 36: seven connections sending a header line every 2 s held every
  // worker, and the page stopped answering): each read must progress within a second (a
  // browser sends its request at once), an idle kept-alive connection goes after 2 s, and the
  // pool has room for more than a handful of them.
  impl->server.set_read_timeout(1, 0);
  impl->server.set_keep_alive_timeout(2);
  impl->server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  impl->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Only requests that name this machine as localhost or by an address: a page elsewhere
  // whose own name was rebound to 127.0.0.1 (DNS rebinding) sends that name as Host and must
  // not read the recordings. An address cannot be rebound, so any literal address passes (a
  // viewer served on 0.0.0.0 is reached by the machine's address).
  impl->server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_header("Host") || IsLocalOrAddress(HostOf(req.get_header_value("Host"))))
      return httplib::Server::HandlerResponse::Unhandled;
    res.status = 421;  // Misdirected Request
    res.set_content("this viewer answers only requests for localhost or an address\n",
                    "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  impl->server.Get("/", [impl](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    std::string page = ServedPage(impl->title, "document.bin");
    if (RangeUnsatisfiable(req, page.size())) return RefuseRange(res, page.size());
    res.set_content(std::move(page), "text/html; charset=utf-8");
  });
  impl->server.Get("/document.bin", [impl](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    auto document = impl->Document();
    if (!document.ok()) {
      res.status = 500;
      res.set_content(nlohmann::json{{"error", document.message()}}.dump(), "application/json");
      return;
    }
    std::shared_ptr<const std::string> bytes = *document;
    if (RangeUnsatisfiable(req, bytes->size())) return RefuseRange(res, bytes->size());
    res.set_content_provider(bytes->size(), "application/octet-stream",
                             [bytes](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(bytes->data() + offset,
                                                 std::min(length, bytes->size() - offset));
                             });
  });
}

ViewerServer::~ViewerServer() {
  Stop();
}

Expected<int> ViewerServer::Bind(const std::string& host, int port) {
  const int bound = port == 0 ? impl_->server.bind_to_any_port(host)
                              : (impl_->server.bind_to_port(host, port) ? port : -1);
  if (bound < 0)
    return Error{
        fmt::format("cannot listen on {}:{} (in use? choose another port, or port 0 for "
                    "any free one)",
                    host, port)};
  return bound;
}

void ViewerServer::Prepare() {
  (void)impl_->Document();
}

Status ViewerServer::Run() {
  if (!impl_->server.listen_after_bind()) return Error{"the viewer server stopped listening"};
  return {};
}

void ViewerServer::Stop() {
  if (impl_->server.is_running()) impl_->server.stop();
}

}  // namespace lt::viewer
