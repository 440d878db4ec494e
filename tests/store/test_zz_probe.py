import sys; sys.path.insert(0, "/work/main/tests/store")
from test_store_contract import *
from hypothesis import settings as hs
@hs(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=tricky_text, after=tricky_text)
def test_probe(store, before, after):
    test_update_keeps_the_index_in_sync.hypothesis.inner_test(store, before, after)
