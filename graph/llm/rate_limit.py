"""A real requests-per-minute / tokens-per-minute limiter (sliding 60 s window) plus a shared pause for Retry-After.

A semaphore only bounds how many calls are in flight; a provider's limits are per minute, so a fast local loop with
4 slots can still fire hundreds of requests a minute. This admits a call only when both windows have room and no
429 pause is running; every waiting caller sleeps until the earliest moment that could change.
"""

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable

WINDOW_S = 60.0


class RateLimiter:
    def __init__(
        self,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        self.rpm = requests_per_minute
        self.tpm = tokens_per_minute
        self.clock = clock
        self.sleep = sleep
        self._events: collections.deque[list] = collections.deque()  # [admitted_at, tokens]
        self._paused_until = 0.0
        self._lock: asyncio.Lock | None = None
        # What happened, for metering and tests (values, not timings).
        self.waits: list[float] = []  # seconds a caller was told to wait (window full or paused)
        self.pauses: list[float] = []  # Retry-After / backoff pauses imposed on everyone

    def _prune(self, now: float) -> None:
        while self._events and now - self._events[0][0] >= WINDOW_S:
            self._events.popleft()

    def _wait_needed(self, now: float, tokens: int) -> float:
        wait = max(0.0, self._paused_until - now)
        if self.rpm is not None and len(self._events) >= self.rpm:
            wait = max(wait, self._events[len(self._events) - self.rpm][0] + WINDOW_S - now)
        if self.tpm is not None and self._events:
            used = sum(e[1] for e in self._events)
            if used + tokens > self.tpm:
                # Free the oldest entries until the new call fits (a call larger than the whole window waits for
                # an empty window, then goes alone).
                need = used + tokens - self.tpm
                for at, spent in self._events:
                    need -= spent
                    if need <= 0:
                        wait = max(wait, at + WINDOW_S - now)
                        break
                else:
                    wait = max(wait, self._events[-1][0] + WINDOW_S - now)
        return wait

    async def acquire(self, tokens: int) -> list:
        """Wait until a call estimated at `tokens` fits; returns a handle for settle()."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        while True:
            async with self._lock:
                now = self.clock()
                self._prune(now)
                wait = self._wait_needed(now, tokens)
                if wait <= 0:
                    entry = [now, max(0, int(tokens))]
                    self._events.append(entry)
                    return entry
            self.waits.append(wait)
            await self.sleep(wait)

    def settle(self, handle: list, actual_tokens: int) -> None:
        """Replace the estimate with what the response's usage says was spent."""
        handle[1] = max(0, int(actual_tokens))

    def pause(self, seconds: float) -> None:
        """Nobody starts a call for `seconds` (a 429's Retry-After applies to the whole key, not just one caller)."""
        seconds = max(0.0, float(seconds))
        self.pauses.append(seconds)
        self._paused_until = max(self._paused_until, self.clock() + seconds)

    def in_window(self) -> tuple[int, int]:
        now = self.clock()
        self._prune(now)
        return len(self._events), sum(e[1] for e in self._events)
