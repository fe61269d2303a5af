// A real PostgreSQL server for tests: initdb + pg_ctl in a temporary directory, listening on a
// free loopback port (and a Unix socket in that directory), trust authentication for the user
// "orrery". initdb refuses to run as root, so as root the server runs as the unprivileged user
// "nobody" (runuser), its directory owned by that user. Binaries: PATH, else
// /usr/lib/postgresql/<version>/bin. When they cannot be found, available() is false and
// skip_reason() says why (tests GTEST_SKIP with it).
#pragma once

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <libpq-fe.h>

namespace orrery::testing {

class PgServer {
 public:
  static PgServer& get() {
    static PgServer server;
    return server;
  }
  bool available() const { return running_; }
  const std::string& skip_reason() const { return why_; }
  // A URL for a new, empty database.
  std::string fresh_database() {
    const std::string name = "t" + std::to_string(++databases_);
    run_sql("postgres", "CREATE DATABASE " + name);
    return url(name);
  }
  std::string url(const std::string& db) const {
    return "postgresql://orrery@127.0.0.1:" + std::to_string(port_) + "/" + db +
           "?connect_timeout=2";
  }
  // Runs SQL (several statements allowed) on a database; false on failure.
  bool run_sql(const std::string& db, const std::string& sql) const {
    PGconn* c = PQconnectdb(url(db).c_str());
    bool ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
      PGresult* r = PQexec(c, sql.c_str());
      ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
      PQclear(r);
    }
    PQfinish(c);
    return ok;
  }
  void stop() {
    ctl("stop -m fast -w");
    running_ = false;
  }
  bool start() {
    running_ = ctl("start -w -t 30 -l " + dir_ + "/log -o \"-k " + dir_ + " -h 127.0.0.1 -p " +
                   std::to_string(port_) + " -F\"");
    return running_;
  }
  ~PgServer() {
    if (running_) stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

 private:
  PgServer() {
    bin_ = find_bin();
    if (bin_.empty()) {
      why_ =
          "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in "
          "/usr/lib/postgresql/*/bin; install the Debian package postgresql";
      return;
    }
    char tmpl[] = "/tmp/orrery-pg-XXXXXX";
    if (!mkdtemp(tmpl)) {
      why_ = "cannot create a temporary directory";
      return;
    }
    dir_ = tmpl;
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("nobody");
      if (!pw || chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        why_ = "running as root and cannot hand " + dir_ + " to the user nobody";
        return;
      }
      as_ = "runuser -u nobody -- ";
    }
    port_ = free_port();
    const std::string init = as_ + bin_ + "/initdb -D " + dir_ + "/data -A trust -U orrery " +
                             "--no-sync -E UTF8 --locale=C >" + dir_ + "/initdb.log 2>&1";
    if (std::system(init.c_str()) != 0) {
      why_ = "initdb failed (see " + dir_ + "/initdb.log)";
      return;
    }
    if (!start()) why_ = "pg_ctl start failed (see " + dir_ + "/log)";
  }
  bool ctl(const std::string& args) {
    const std::string cmd =
        as_ + bin_ + "/pg_ctl -D " + dir_ + "/data " + args + " >>" + dir_ + "/pg_ctl.log 2>&1";
    return std::system(cmd.c_str()) == 0;
  }
  static std::string find_bin() {
    if (std::system("command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1") ==
        0) {
      const char* path = std::getenv("PATH");
      std::string p = path ? path : "";
      size_t pos = 0;
      while (pos <= p.size()) {
        const size_t c = std::min(p.find(':', pos), p.size());
        const std::string d = p.substr(pos, c - pos);
        if (std::filesystem::exists(d + "/initdb")) return d;
        pos = c + 1;
      }
    }
    std::string best;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      const std::string b = e.path().string() + "/bin";
      if (std::filesystem::exists(b + "/initdb") && b > best) best = b;
    }
    return best;
  }
  static int free_port() {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 55432;
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    close(s);
    return port;
  }

  std::string bin_, dir_, as_, why_;
  int port_ = 0;
  int databases_ = 0;
  bool running_ = false;
};

}  // namespace orrery::testing
