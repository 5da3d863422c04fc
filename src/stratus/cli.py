"""``stratus``: run the sandbox cloud and operate on its database.

Every command takes the same settings as the server (flags or ``STRATUS_*`` variables). Commands
other than ``serve`` work directly on the database, so they also work while no server runs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from fastapi import HTTPException
from rich.console import Console
from rich.table import Table

from stratus.config import Settings
from stratus.core.clock import format_time

app = typer.Typer(help="stratus: a self-hosted sandbox cloud with a console, a JSON API and an audit trail.",
                  no_args_is_help=True, add_completion=False)
out = Console()
err = Console(stderr=True)

DatabaseOpt = typer.Option(None, "--database", "-d", help="SQLAlchemy URL (default sqlite:///stratus.db; env STRATUS_DATABASE_URL).")
SeedOpt = typer.Option(None, "--seed", help="Seed for ids and random choices (env STRATUS_SEED).")


def settings_from(**flags: Any) -> Settings:
    """Flags override environment variables, which override defaults."""
    names = {"database": "database_url", "audit_delay": "audit_delivery_delay"}
    values = {names.get(k, k): v for k, v in flags.items() if v is not None}
    try:
        return Settings(**values)
    except Exception as exc:  # pydantic's message names the field
        err.print(f"[red]Invalid settings:[/red] {exc}")
        raise typer.Exit(2) from None


def open_runtime(create: bool = False, **flags: Any):  # noqa: ANN201
    """A runtime on the configured database; unless ``create``, a SQLite file must already exist
    (a mistyped ``--database`` or a command run in the wrong folder must not leave a new file behind)."""
    from stratus.runtime import Runtime

    settings = settings_from(**flags)
    if not create:
        _require_database(settings.database_url)
    return Runtime(settings)


def _require_database(url: str) -> None:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return  # PostgreSQL databases are created by their operator; memory is always new
    if not Path(parsed.database).is_file():
        err.print(f"[red]No stratus database at {parsed.database}[/red] (give --database or set STRATUS_DATABASE_URL; "
                  "`stratus serve`, `seed` and `create-account` create one).")
        raise typer.Exit(1)


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def _admin_call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except HTTPException as exc:
        detail = exc.detail if isinstance(exc.detail, dict) else {"Code": "Error", "Message": str(exc.detail)}
        # markup=False: messages quote tenant-chosen values (an alias, a name) that may contain "[/]"
        err.print(f"{detail.get('Code')}: {detail.get('Message')}", markup=False, style="red")
        raise typer.Exit(1) from None


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="TCP port."),
    database: Optional[str] = DatabaseOpt,
    seed: Optional[int] = SeedOpt,
    clock: Optional[str] = typer.Option(None, help="'real' (default) or 'manual' (time moves only via the admin API)."),
    time_scale: Optional[float] = typer.Option(None, help="Virtual seconds per real second; 10 makes waits 10x shorter."),
    release: Optional[str] = typer.Option(None, help="Console release served by default (accounts may override)."),
    popup_rate: Optional[float] = typer.Option(None, help="Probability (0-1) of an announcement pop-up per page."),
    audit_delay: Optional[float] = typer.Option(None, help="Seconds before audit records become visible."),
    admin_token: Optional[str] = typer.Option(None, help="Bearer token of the admin API, 16+ characters (env "
                                              "STRATUS_ADMIN_TOKEN). Unset: generated on the first start, printed once "
                                              "and stored with the database; needed to listen beyond loopback."),
    demo: bool = typer.Option(False, help="Create the demo account and its resources if they do not exist yet."),
    secure_cookies: Optional[bool] = typer.Option(None, "--secure-cookies", help="Mark console cookies Secure "
                                                  "(serve behind HTTPS; env STRATUS_COOKIE_SECURE)."),
) -> None:
    """Start the server: console at /console, API at /api, admin API at /admin."""
    from stratus.runtime import Runtime
    from stratus.server import serve_forever

    settings = settings_from(database=database, seed=seed, clock=clock, time_scale=time_scale, release=release,
                             popup_rate=popup_rate, audit_delay=audit_delay, admin_token=admin_token,
                             cookie_secure=secure_cookies)
    if settings.admin_token is None and not _is_loopback(host):
        err.print(f"[red]Refusing to listen on {host} without a configured admin token[/red]: the admin API "
                  "controls every account. Set STRATUS_ADMIN_TOKEN (16 characters or more) or --admin-token, "
                  "or listen on 127.0.0.1.")
        raise typer.Exit(2)
    runtime = Runtime(settings)
    url = f"http://{host}:{port}"
    if demo:
        from stratus.seed import DEMO_ALIAS, DEMO_PASSWORD, seed_demo

        if not _alias_exists(runtime, DEMO_ALIAS):
            with out.status("Seeding the demo account (VPC, vSwitches, security group, instance, EIP)..."):
                seed_demo(runtime)
        runtime.demo_hint = f"root@{DEMO_ALIAS} / {DEMO_PASSWORD}"
        out.print(f"[bold]Console:[/bold] {url}/console")
        out.print(f"[bold]Sign in:[/bold] root@{DEMO_ALIAS}   [bold]Password:[/bold] {DEMO_PASSWORD}")
    else:
        out.print(f"[bold]Console:[/bold] {url}/console   [bold]API:[/bold] {url}/api/{{product}}/{{Action}}   [bold]Docs:[/bold] {url}/docs")
    out.print(f"Release {runtime.settings.release}, database {runtime.settings.database_url}, clock {runtime.settings.clock} "
              f"x{runtime.settings.time_scale} at {format_time(runtime.clock.now())}"
              + (" (resumed from the stored time)" if _resumed(runtime) else ""))
    _print_admin_token(runtime)
    serve_forever(runtime, host, port)  # closes the runtime on the way out: the clock's time is stored


def _resumed(runtime: Any) -> bool:
    """Whether virtual time starts from the stored mark rather than the wall clock or --start-time."""
    from datetime import datetime, timezone

    from stratus.core.clock import parse_time

    floor = parse_time(runtime.settings.start_time) if runtime.settings.clock == "manual" else datetime.now(timezone.utc)
    return runtime.clock_mark is not None and runtime.clock_mark > floor


def _print_admin_token(runtime: Any) -> None:
    """A generated token is shown once, when it is made; later starts say where it is kept."""
    origin = runtime.admin_token_origin
    if origin == "generated":
        out.print(f"[bold]Admin token[/bold] (generated; shown this once, stored with the database): {runtime.admin_token}",
                  soft_wrap=True)
    elif origin == "stored":
        out.print("[bold]Admin token:[/bold] the one generated on first start (`stratus admin-token` prints it).")
    else:
        out.print("[bold]Admin token:[/bold] as configured.")


@app.command("admin-token")
def admin_token_command(database: Optional[str] = DatabaseOpt) -> None:
    """Print the admin token generated on the database's first start (only whoever can read the database can)."""
    from stratus.core.server_state import ADMIN_TOKEN, ServerState

    runtime = open_runtime(database=database)
    with runtime.session() as db:
        stored = db.get(ServerState, ADMIN_TOKEN)
    if stored is None or not stored.text:
        err.print("[red]No admin token stored yet[/red]: `stratus serve` generates one on its first start "
                  "unless STRATUS_ADMIN_TOKEN is set.")
        raise typer.Exit(1)
    out.print(stored.text, soft_wrap=True)


def _alias_exists(runtime: Any, alias: str) -> bool:
    from sqlalchemy import select

    from stratus.core.identity import Account

    with runtime.session() as db:
        return db.execute(select(Account.id).where(Account.alias == alias)).first() is not None


@app.command("seed")
def seed_command(database: Optional[str] = DatabaseOpt, seed: Optional[int] = SeedOpt,
                 alias: str = typer.Option("demo", help="Alias of the account to create."),
                 password: str = typer.Option("Demo-Passw0rd", help="Root console password.")) -> None:
    """Create a demo account with a VPC, vSwitches, a security group, a running instance and an EIP."""
    from stratus.seed import SeedError, seed_demo

    runtime = open_runtime(create=True, database=database, seed=seed, time_scale=1000.0)
    if _alias_exists(runtime, alias):
        err.print(f"[red]An account with alias {alias!r} already exists in {runtime.settings.database_url}.[/red]")
        raise typer.Exit(1)
    try:
        demo = seed_demo(runtime, alias=alias, password=password)
    except SeedError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from None
    out.print_json(json.dumps({"credentials": demo.credentials.as_dict(), "resources": demo.resources}))


@app.command("create-account")
def create_account(alias: str, database: Optional[str] = DatabaseOpt, password: Optional[str] = typer.Option(None),
                   balance: float = typer.Option(1000.0, help="Balance in dollars."),
                   release: Optional[str] = typer.Option(None, help="Console release override for this account.")) -> None:
    """Create an empty account and print its console login and access keys."""
    from stratus import admin

    runtime = open_runtime(create=True, database=database)
    body = admin.NewAccount(alias=alias, password=password, balance_cents=int(balance * 100), release=release)
    out.print_json(json.dumps(_admin_call(admin.create_account, body, runtime)))


def _account_id(runtime: Any, account: str) -> str:
    """Accept an account id or an alias."""
    from sqlalchemy import or_, select

    from stratus.core.identity import Account

    with runtime.session() as db:
        found = db.execute(select(Account.id).where(or_(Account.id == account, Account.alias == account))).scalar_one_or_none()
    if found is None:
        err.print(f"No account {account!r} (give an id or an alias).", markup=False, style="red")
        raise typer.Exit(1)
    return found


@app.command()
def reset(account: str = typer.Argument(..., help="Account id or alias."), database: Optional[str] = DatabaseOpt,
          balance: Optional[float] = typer.Option(None, help="Set the balance (dollars) as well.")) -> None:
    """Delete every resource of an account (users and access keys stay)."""
    from stratus import admin

    runtime = open_runtime(database=database)
    body = admin.ResetBody(balance_cents=None if balance is None else int(balance * 100))
    out.print_json(json.dumps(_admin_call(admin.reset_account, _account_id(runtime, account), body, runtime)))


@app.command()
def snapshot(account: str = typer.Argument(..., help="Account id or alias."), database: Optional[str] = DatabaseOpt,
             name: str = typer.Option("", help="A label for the snapshot.")) -> None:
    """Snapshot one account's complete state; prints the snapshot id."""
    from stratus import admin

    runtime = open_runtime(database=database)
    out.print_json(json.dumps(_admin_call(admin.snapshot_account, _account_id(runtime, account), admin.SnapshotBody(name=name), runtime)))


@app.command()
def restore(snapshot_id: str, database: Optional[str] = DatabaseOpt) -> None:
    """Restore an account to a snapshot (other accounts and the audit trail are untouched)."""
    from stratus import admin

    runtime = open_runtime(database=database)
    out.print_json(json.dumps(_admin_call(admin.restore_snapshot, snapshot_id, runtime)))


@app.command()
def events(
    database: Optional[str] = DatabaseOpt,
    account: Optional[str] = typer.Option(None, help="Account id or alias (default: all accounts)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write JSONL here instead of printing a table."),
    event_name: Optional[str] = typer.Option(None, help="Only this event name."),
    actor: Optional[str] = typer.Option(None, help="console | sdk | provisioner | system | admin | anonymous"),
    errors_only: bool = typer.Option(False, "--errors", help="Only failed calls."),
    limit: int = typer.Option(50, help="Rows in the table view (newest first)."),
) -> None:
    """Show the audit trail as a table, or export it as JSONL (oldest first, exactly as hashed)."""
    from stratus.audit.display import event_row
    from stratus.audit.trail import EventFilter, export_lines, lookup

    runtime = open_runtime(database=database)
    flt = EventFilter(account_id=_account_id(runtime, account) if account else None, event_name=event_name, actor=actor,
                      error_code="*" if errors_only else None)
    with runtime.session() as db:
        if output is not None:
            count = 0
            with output.open("w", encoding="utf-8") as fh:
                for line in export_lines(db, flt):
                    fh.write(line + "\n")
                    count += 1
            out.print(f"Wrote {count} records to {output}", markup=False)
            return
        records, total = lookup(db, flt, page_size=limit)
    table = Table(title=f"Audit trail ({len(records)} of {total}, newest first)",
                  caption="times: UTC on the server's clock, virtual when it runs with --time-scale or a manual clock")
    for column in ("time", "event", "service", "actor", "user", "error", "resources"):
        table.add_column(column)
    for r in records:
        table.add_row(*event_row(r))  # Text cells: tenant-written values are never read as markup
    Console().print(table)  # a fresh console measures the terminal now (COLUMNS may have changed)


@app.command("verify-trail")
def verify_trail(
    database: Optional[str] = DatabaseOpt,
    digests: Optional[Path] = typer.Option(None, "--digests", help="Also check these exported digest files "
                                                                   "(a folder written by export-digests)."),
) -> None:
    """Recompute the hash chain and check its signed digests; exit 1 naming the first problem."""
    from stratus.audit.digests import DigestFileError, read_digest_files
    from stratus.audit.verify import verify_trail as verify

    runtime = open_runtime(database=database)
    try:
        exported = read_digest_files(digests) if digests is not None else None
    except DigestFileError as exc:
        err.print(f"Cannot read the digest files: {exc}", markup=False)
        raise typer.Exit(2) from None
    if digests is not None and not exported:
        err.print(f"No digest files (stratus-digest-*.json) in {digests}.", markup=False)
        raise typer.Exit(2)
    with runtime.session() as db:
        report = verify(db, runtime.digest_signer, exported)
    if report.ok:
        checked = f", {report.exported_digests_checked} exported digest files match" if exported else ""
        anchored = (f"{report.digests} signed digests anchor records 1-{report.anchored_records}" if report.digests
                    else "no signed digest yet")
        out.print(f"[green]OK[/green]: {report.records} records, hash chain intact; {anchored} "
                  f"({report.unanchored_records} newer records not yet anchored){checked}.")
        return
    where = f"record {report.first_bad_seq}: " if report.first_bad_seq is not None else ""
    err.print(f"TAMPERED: {where}{report.problem} ({report.records} records read).", markup=False, style="red")
    raise typer.Exit(1)


@app.command("export-digests")
def export_digests(directory: Path = typer.Argument(..., help="Folder to write stratus-digest-NNNNNNNN.json files into."),
                   database: Optional[str] = DatabaseOpt) -> None:
    """Write the trail's signed digests as files (keep them off this host); existing files are kept."""
    from stratus.audit.digests import export_digests as export

    runtime = open_runtime(database=database)
    with runtime.session() as db:
        written = export(db, directory)
    out.print(f"Wrote {len(written)} new digest files to {directory}.", markup=False)


def main() -> None:  # pragma: no cover
    app(prog_name=os.path.basename(sys.argv[0]) or "stratus")
