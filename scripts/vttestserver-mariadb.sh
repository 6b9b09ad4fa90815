#!/usr/bin/env bash
# Start a real Vitess (vttestserver + vtcombo v0.24.4) on Debian's MariaDB 10.11 for manual checks of the Vitess
# source (docs/vitess.md, "Verification"). Not used by the test suite: the first build takes ~40 min on 2 cores.
#
#   scripts/vttestserver-mariadb.sh <work dir> [base port, default 15300]
#
# VTGate gRPC is then on base+1 (database.port), VTGate MySQL on base+3, keyspace `commerce` with shards -80, 80-
# and the table from <work dir>/schema (created if missing). Idempotent: binaries are kept in <work dir>/bin.
# Needs root (it creates the user `vtrun`: mysqlctl refuses to run as root) and Go.
set -euo pipefail
WORK=$(realpath -m "${1:?usage: $0 <work dir> [base port]}")
PORT=${2:-15300}
VERSION=v0.24.4
mkdir -p "$WORK/bin" "$WORK/mod"

if [ ! -x "$WORK/bin/vtcombo" ] || [ ! -x "$WORK/bin/vttestserver" ] || [ ! -x "$WORK/bin/mysqlctl" ]; then
  # `go install pkg@version` refuses Vitess (its go.mod has exclude directives): build inside a scratch module.
  cd "$WORK/mod"
  [ -f go.mod ] || printf 'module vtbuild\n\ngo 1.24\n' > go.mod
  pkgs=(vitess.io/vitess/go/cmd/vttestserver vitess.io/vitess/go/cmd/vtcombo vitess.io/vitess/go/cmd/mysqlctl)
  nice -n 19 go get "${pkgs[@]/%/@$VERSION}"
  GOBIN="$WORK/bin" nice -n 19 go install "${pkgs[@]}"
fi

# Vitess's config/ (my.cnf templates, init_db.sql) from the module cache, with MariaDB's differences removed:
# no super_read_only variable, semi-sync built in (no semisync_master.so).
if [ ! -d "$WORK/config" ]; then
  cp -r "$(go env GOMODCACHE)/vitess.io/vitess@$VERSION/config" "$WORK/config"
  chmod -R u+w "$WORK/config"
  sed -i 's/^SET @original_super_read_only=.*$/-- (MariaDB: no super_read_only)/; s/^SET GLOBAL super_read_only=.*$/-- (MariaDB: no super_read_only)/' "$WORK/config/init_db.sql"
fi

# VT_MYSQL_ROOT: the MariaDB binaries, with wrappers that drop the same settings from arguments and my.cnf.
ROOT="$WORK/mysqlroot"
mkdir -p "$ROOT/bin" "$ROOT/sbin"
for b in bin/mysql_install_db sbin/mysqld bin/mysqld_safe; do
  cat > "$ROOT/$b" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
  case "\$a" in
    --super-read-only*|--super_read_only*) ;;
    --defaults-file=*) sed -i '/^plugin-load/d;/^super-read-only/d' "\${a#--defaults-file=}"; args+=("\$a");;
    *) args+=("\$a");;
  esac
done
exec /usr/$b "\${args[@]}"
EOF
  chmod 755 "$ROOT/$b"
done
for f in /usr/bin/my_print_defaults /usr/bin/mariadb* /usr/bin/resolveip /usr/bin/mysql /usr/bin/mysqladmin /usr/bin/mysqlbinlog; do
  [ -e "$f" ] && [ ! -e "$ROOT/bin/$(basename "$f")" ] && ln -s "$f" "$ROOT/bin/$(basename "$f")"
done
ln -sfn mysqld "$ROOT/sbin/mariadbd"
ln -sfn /usr/share "$ROOT/share"
ln -sfn /usr/lib "$ROOT/lib"

if [ ! -d "$WORK/schema/commerce" ]; then
  mkdir -p "$WORK/schema/commerce"
  cat > "$WORK/schema/commerce/1_customer.sql" <<'EOF'
CREATE TABLE customer (id BIGINT NOT NULL, email VARCHAR(64), balance DECIMAL(10,2), tier ENUM('free','pro'),
  created DATETIME(6) NOT NULL, PRIMARY KEY (id));
EOF
  echo '{"sharded": true, "vindexes": {"hash": {"type": "hash"}}, "tables": {"customer": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}' \
    > "$WORK/schema/commerce/vschema.json"
fi

id vtrun >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin vtrun
rm -rf "$WORK/data" && mkdir -p "$WORK/data"
chown -R vtrun "$WORK/data" "$WORK/schema"
chmod o+rx "$WORK"
runuser -u vtrun -- env VTROOT="$WORK" VTDATAROOT="$WORK/data" VT_MYSQL_ROOT="$ROOT" \
  "$WORK/bin/vttestserver" --port "$PORT" --keyspaces commerce --num-shards 2 --mysql-bind-host 127.0.0.1 \
  --vtcombo-bind-host 127.0.0.1 --schema-dir "$WORK/schema" --data-dir "$WORK/data" > "$WORK/vttestserver.log" 2>&1 &
echo "vttestserver pid $! (log $WORK/vttestserver.log); waiting for VTGate gRPC on $((PORT + 1))"
for _ in $(seq 1 180); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$((PORT + 1))") 2>/dev/null; then echo "VTGate ready: gRPC $((PORT + 1)), MySQL $((PORT + 3))"; exit 0; fi
  sleep 1
done
echo "VTGate did not come up; see $WORK/vttestserver.log" >&2
exit 1
