"""A batch's ledger on a real redis-server: a revoked row is never claimed and a claimed one never revoked, a
row that delivered its result is not run again, events come back in order with their results, and the broker
says which published rows it still holds."""

from __future__ import annotations

from typing import Iterator

import pytest
import redis

from app.distributed.broker import in_broker, make_broker, row_message
from app.distributed.ledger import BatchLedger
from app.distributed.models import RowResult, RowTask
from tests.support.redis_server import RedisServer


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis.Redis]:
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        connection = redis.Redis.from_url(server.url)
        yield connection
        connection.close()


def test_claims_and_revocations_never_both_win(client: redis.Redis) -> None:
    ledger = BatchLedger(client, "batch-claims")
    assert ledger.revoke(0) is True and ledger.claim(0) == "revoked"  # revoked first: never runs
    assert ledger.claim(1) == "go" and ledger.revoke(1) is False  # started first: the submitter waits for it
    assert ledger.claim(1) == "go"  # delivered again after its worker died: it runs again
    ledger.finished(1, "w1", error="gave up")
    assert ledger.claim(1) == "done"  # a copy sent again after a broker restart is dropped
    assert 0 < client.ttl(ledger.rows_key) <= 7 * 24 * 3600


def test_events_come_back_in_order_from_a_cursor(client: redis.Redis) -> None:
    ledger = BatchLedger(client, "batch-events")
    assert ledger.started(2, "w1", at=5.0) == 1 and ledger.started(2, "w2", at=6.0) == 2
    result = RowResult(record={"id": "run-1", "status": "ok", "outputs": {"who": "Zoë"}}, worker="w2",
                       started_at=6.0, ended_at=7.5, attempt=2)
    ledger.finished(2, "w2", result=result)
    events = ledger.read("0-0")
    assert [(e.kind, e.row, e.worker, e.attempt) for e in events] == [
        ("started", 2, "w1", 1), ("started", 2, "w2", 2), ("result", 2, "w2", 2)]
    assert events[2].result == result
    assert ledger.read(events[1].entry) == events[2:] and ledger.read(events[2].entry, block_ms=10) == []


def test_the_broker_says_which_published_rows_it_holds(client: redis.Redis) -> None:
    url = f"redis://127.0.0.1:{client.connection_pool.connection_kwargs['port']}/0"
    broker = make_broker(url, consuming=False)
    row = RowTask(batch_id="batch-held", row_index=0, total=1, document={"kind": "app"})
    sent = broker.enqueue(row_message(row, "test-queue"))
    message_id = sent.options["redis_message_id"]
    assert in_broker(client, "test-queue", [message_id, "never-sent"]) == [True, False]
    client.delete("browserpilot:test-queue.msgs")  # what a broker restarted without persistence forgets
    assert in_broker(client, "test-queue", [message_id]) == [False]
    broker.client.connection_pool.disconnect()
