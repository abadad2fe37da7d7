"""Django's RedisCache, with one client object per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client()`` builds a new ``redis.Redis`` for every cache call; its
constructor copies the response-callback table (≈170 entries) each time, which on a signed-in
page (session, rate limits, page-cache version) cost more than the round trip itself. A
``redis.Redis`` is safe to share (each command borrows a connection from the pool), and Django
already keeps one cache object per thread, so one client per pool is enough.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ReusingRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    """settings.CACHES backend: ``studyapp.cache.RedisCache``, configured as Django's own."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient
