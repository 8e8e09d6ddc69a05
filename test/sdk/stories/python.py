"""The shared client story (docs/sdks.md, "The client story") against the Python SDK that
`npm run sdk -- python` generates (openapi-generator 4.3.1, package tec_events_client).

Run by test/sdk/python.test.ts with Debian's /usr/bin/python3 (urllib3, six, certifi and dateutil
from apt), the SDK folder on PYTHONPATH and the service's address and two users in the environment:
TEC_BASE_URL, TEC_LOGIN, TEC_SECRET (an administrator, HTTP Basic) and TEC_BEARER (an editor's
token). Prints `step <name>` once each step has passed; any failure raises, so the exit status is 1.

4.3.1 writes a named union (such as `EventVenue`, a venue or a list of them) as the pass-through type
`object` (scripts/sdk.mjs maps them so): the value is the JSON as read, and `typed` turns it into the
typed member once the story has checked which member it is. Error bodies come as text on ApiException;
`typed` reads them as the `Error` model. A 304 is no exception: `*_with_http_info` returns
(None, 304, headers) (scripts/sdk-templates/python/).
"""

import json
import os

import tec_events_client as sdk
from tec_events_client.rest import ApiException

BASE_URL = os.environ['TEC_BASE_URL']


def client_for(login=None, secret=None, bearer=None):
    """An ApiClient for one caller: HTTP Basic, a bearer token, or anonymous."""
    configuration = sdk.Configuration(host=BASE_URL)
    configuration.username = login
    configuration.password = secret
    configuration.access_token = bearer
    return sdk.ApiClient(configuration)


class _Answer:
    """What ApiClient.deserialize reads from an HTTP answer: its body."""

    def __init__(self, data):
        self.data = data


def typed(client, value, klass):
    """A pass-through value (parsed JSON, or a JSON text) as the SDK's model `klass`."""
    text = value if isinstance(value, (str, bytes)) else json.dumps(value)
    return client.deserialize(_Answer(text), klass)


def failure(call):
    """The ApiException that `call` must raise: its status and its body as a typed Error."""
    try:
        call()
    except ApiException as error:
        return error
    raise AssertionError('the call succeeded; an error answer was expected')


def step(name):
    print('step ' + name, flush=True)


def story():
    admin = client_for(login=os.environ['TEC_LOGIN'], secret=os.environ['TEC_SECRET'])
    editor = client_for(bearer=os.environ['TEC_BEARER'])
    anonymous = client_for()
    events = sdk.EventsApi(admin)

    # Where the change feed starts: the cursor of a list read before the story writes anything.
    _, _, headers = events.list_events_with_http_info(per_page=1)
    cursor = headers['X-TEC-Change-Cursor']
    assert cursor, 'X-TEC-Change-Cursor on the list'

    venue = sdk.VenuesApi(admin).create_venue(sdk.VenueCreate(venue='Python Hall', city='Springfield', country='United States'))
    organizer = sdk.OrganizersApi(admin).create_organizer(sdk.OrganizerCreate(organizer='Python Society', email='py@example.org'))
    category = sdk.CategoriesApi(admin).create_category(sdk.CategoryCreate(name='Python concerts'))
    tag = sdk.TagsApi(editor).create_tag(sdk.TagCreate(name='Python picks'))
    assert isinstance(venue, sdk.Venue) and venue.venue == 'Python Hall'
    assert organizer.organizer == 'Python Society' and category.name == 'Python concerts' and tag.name == 'Python picks'
    step('create-linked-records')

    # Unions of the create model (`venue`, `organizer`, `image`, `cost`) take plain JSON values.
    created = events.create_event(sdk.EventCreate(
        title='Python concert', start_date='2027-05-20 19:00:00', end_date='2027-05-20 21:00:00', status='publish',
        venue=venue.id, organizer=[organizer.id], categories=[category.id], tags=[tag.id],
        image='https://images.example.org/python.jpg', cost=15))
    assert created.title == 'Python concert' and created.cost == '$15'
    try:
        sdk.EventCreate(start_date='2027-05-20 19:00:00', end_date='2027-05-20 21:00:00')
        raise AssertionError('the model does not require a title')
    except ValueError:
        pass  # the required fields of EventCreate (its own and those of the schemas it joins) are required
    step('create-event')

    read = events.get_event(created.id)
    assert isinstance(read.venue, dict), 'one venue (a list would be a list)'
    place = typed(admin, read.venue, 'Venue')
    assert isinstance(place, sdk.Venue) and place.id == venue.id and place.city == 'Springfield'
    assert read.image is not False, 'an image'
    image = typed(admin, read.image, 'Image')
    assert image.url == 'https://images.example.org/python.jpg' and image.extension == 'jpg'
    assert [o.organizer for o in read.organizer] == ['Python Society'] and isinstance(read.organizer[0], sdk.Organizer)
    assert [t.slug for t in read.categories] == [category.slug] and [t.slug for t in read.tags] == [tag.slug]
    by_slug = events.get_event_by_slug(created.slug)
    assert by_slug.id == created.id and typed(admin, by_slug.venue, 'Venue').venue == 'Python Hall'
    step('read-by-id-and-slug')

    # A conditional read with the ETag of a read: 304, no exception, no data.
    _, _, headers = events.get_event_with_http_info(created.id)
    again, status, _ = events.get_event_with_http_info(created.id, if_none_match=headers['ETag'])
    assert status == 304 and again is None, status
    step('not-modified')

    listed = events.list_events(categories=[category.slug], start_date='2027-05-01', end_date='2027-05-31')
    assert isinstance(listed, sdk.EventList) and listed.total == 1 and [e.id for e in listed.events] == [created.id]
    outside = events.list_events(categories=[category.slug], start_date='2027-06-01', end_date='2027-06-30')
    assert outside.total == 0
    step('list-with-filters')

    # A conditional update through the typed update model: the ETag of the read, then a stale one.
    _, _, headers = events.get_event_with_http_info(created.id)
    etag = headers['ETag']
    updated = events.patch_event(created.id, if_match=etag, event_update=sdk.EventUpdate(title='Python concert, updated'))
    assert updated.title == 'Python concert, updated' and updated.start_date == '2027-05-20 19:00:00', 'updates are partial'
    stale = failure(lambda: events.patch_event(created.id, if_match=etag, event_update=sdk.EventUpdate(title='Lost')))
    assert stale.status == 412 and typed(admin, stale.body, 'Error').code == 'rest_precondition_failed'
    step('update-if-match')

    body = sdk.EventCreate(title='Python once', start_date='2027-05-21 10:00:00', end_date='2027-05-21 11:00:00', status='draft')
    key = 'python-story-%d' % created.id
    once, first_status, _ = events.create_event_with_http_info(body, idempotency_key=key)
    twice, status, headers = events.create_event_with_http_info(body, idempotency_key=key)
    assert first_status == 201 and status == 201 and twice.id == once.id
    assert headers['Idempotent-Replayed'] == 'true'
    step('idempotent-replay')

    # Follow the change feed from the cursor read first; upserts carry the record (a union: typed here).
    seen = {}
    while True:
        feed = sdk.ChangesApi(admin).list_changes(after=cursor, types=['event'])
        for change in feed.changes:
            seen[change.id] = change
        cursor = feed.next_cursor
        if not feed.has_more:
            break
    change = seen[created.id]
    assert change.action == 'upsert' and typed(admin, change.record, 'Event').title == 'Python concert, updated'
    assert once.id in seen
    step('change-feed')

    public = sdk.EventsApi(anonymous)
    calendar = public.list_events_ics(categories=[category.slug])
    assert calendar.startswith('BEGIN:VCALENDAR\r\n') and calendar.count('BEGIN:VEVENT\r\n') == 1, calendar[:200]
    single = public.get_event_ics(created.id)
    assert 'SUMMARY:Python concert\\, updated\r\n' in single, single
    item_list = public.list_events_json_ld(categories=[category.slug])
    assert isinstance(item_list, sdk.EventItemList) and item_list.number_of_items == 1
    element = item_list.item_list_element[0]
    assert element.position == 1 and element.item.name == 'Python concert, updated'
    assert element.item.location['@type'] == 'Place'
    step('ics-and-json-ld-feeds')

    missing = failure(lambda: events.get_event(987654))
    assert missing.status == 404 and typed(admin, missing.body, 'Error').code == 'rest-event-not-found'
    refused = failure(lambda: sdk.TagsApi(anonymous).create_tag(sdk.TagCreate(name='Free')))
    error = typed(admin, refused.body, 'Error')
    assert refused.status == 401 and isinstance(error, sdk.Error) and error.code == 'rest_forbidden' and error.data.status == 401
    step('typed-errors')

    deleted = events.delete_event(created.id, force=True)
    assert deleted.id == created.id
    assert failure(lambda: events.get_event(created.id)).status == 404
    step('delete')


story()
