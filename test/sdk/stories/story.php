<?php
// The shared client story (docs/sdks.md, "The client story") against the PHP SDK that
// `npm run sdk -- php` generates (openapi-generator 4.3.1, namespace TecEvents, the templates of
// scripts/sdk-templates/php/). Run by test/sdk/php.test.ts with Debian's php-cli and
// php-guzzlehttp-guzzle (no Composer: the SDK's classes load from TEC_SDK/lib, Guzzle from Debian's
// autoloaders) and the service's address and two users in the environment: TEC_BASE_URL, TEC_LOGIN,
// TEC_SECRET (an administrator, HTTP Basic) and TEC_BEARER (an editor's token). Prints `step <name>`
// once each step has passed; a failed check throws, so the exit status is 255.
//
// What 4.3.1's PHP SDK gives, and what the story does with it (docs/sdks.md, "What each language gets"):
// - a named union (`EventVenue`, `FeaturedImage`, `ChangeRecord`, `VenueReference`...) is `mixed`, the
//   decoded JSON (stdClass, array or scalar): the story checks which member it holds and deserializes
//   it into the typed model with ObjectSerializer;
// - each call has a `...WithHttpInfo` twin that returns [data, status, headers];
// - an error answer is an ApiException whose getResponseObject() is the typed `Error`;
// - a 304 is no exception: `...WithHttpInfo` returns [null, 304, headers].

declare(strict_types=1);

use TecEvents\ApiException;
use TecEvents\Configuration;
use TecEvents\Model;
use TecEvents\ObjectSerializer;

require '/usr/share/php/GuzzleHttp/autoload.php';
$sdk = getenv('TEC_SDK') . '/lib/';
spl_autoload_register(function (string $class) use ($sdk): void {
    if (str_starts_with($class, 'TecEvents\\')) {
        require $sdk . str_replace('\\', '/', substr($class, strlen('TecEvents\\'))) . '.php';
    }
});
error_reporting(E_ALL);
set_error_handler(function (int $level, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $level, $file, $line); // a notice or deprecation fails the story
});

function check(bool $condition, string $what): void
{
    if (!$condition) {
        throw new RuntimeException('check failed: ' . $what);
    }
}

function step(string $name): void
{
    echo "step $name\n";
}

/** A Configuration for one caller: HTTP Basic, a bearer token, or anonymous. */
function configuration(?string $login = null, ?string $secret = null, ?string $bearer = null): Configuration
{
    $configuration = (new Configuration())->setHost(getenv('TEC_BASE_URL'));
    if ($login !== null) {
        $configuration->setUsername($login)->setPassword($secret);
    }
    if ($bearer !== null) {
        $configuration->setAccessToken($bearer);
    }
    return $configuration;
}

/** A pass-through union value as the SDK's model `$class`, once the story has checked which member it holds. */
function typed($value, string $class)
{
    return ObjectSerializer::deserialize($value, '\\TecEvents\\Model\\' . $class);
}

/** The ApiException that `$call` must throw. */
function failure(callable $call): ApiException
{
    try {
        $call();
    } catch (ApiException $failure) {
        return $failure;
    }
    throw new RuntimeException('the call succeeded; an error answer was expected');
}

/** A header of an answer's headers (names as the service sent them), by name in any case. */
function header_value(array $headers, string $name): string
{
    foreach ($headers as $key => $values) {
        if (strcasecmp($key, $name) === 0) {
            return $values[0];
        }
    }
    throw new RuntimeException("no $name header");
}

$admin = configuration(getenv('TEC_LOGIN'), getenv('TEC_SECRET'));
$editor = configuration(null, null, getenv('TEC_BEARER'));
$anonymous = configuration();
$events = new TecEvents\Api\EventsApi(null, $admin);

// Where the change feed starts: the cursor of a list read before the story writes anything.
[, , $headers] = $events->listEventsWithHttpInfo(1, 1);
$cursor = header_value($headers, 'X-TEC-Change-Cursor');

$venue = (new TecEvents\Api\VenuesApi(null, $admin))->createVenue(new Model\VenueCreate(['venue' => 'PHP Hall', 'city' => 'Springfield', 'country' => 'United States']));
$organizer = (new TecEvents\Api\OrganizersApi(null, $admin))->createOrganizer(new Model\OrganizerCreate(['organizer' => 'PHP Society', 'email' => 'php@example.org']));
$category = (new TecEvents\Api\CategoriesApi(null, $admin))->createCategory(new Model\CategoryCreate(['name' => 'PHP concerts']));
$tag = (new TecEvents\Api\TagsApi(null, $editor))->createTag(new Model\TagCreate(['name' => 'PHP picks']));
check($venue instanceof Model\Venue && $venue->getVenue() === 'PHP Hall', 'the venue');
check($organizer->getOrganizer() === 'PHP Society' && $category->getName() === 'PHP concerts' && $tag->getName() === 'PHP picks', 'organizer and terms');
step('create-linked-records');

// Unions of the create model (`venue`, `organizer`, `image`, `cost`, each term) take plain values.
$created = $events->createEvent(new Model\EventCreate([
    'title' => 'PHP concert', 'start_date' => '2027-05-20 19:00:00', 'end_date' => '2027-05-20 21:00:00', 'status' => 'publish',
    'venue' => $venue->getId(), 'organizer' => [$organizer->getId()], 'categories' => [$category->getId()], 'tags' => [$tag->getId()],
    'image' => 'https://images.example.org/php.jpg', 'cost' => 15,
]));
check($created->getTitle() === 'PHP concert' && $created->getCost() === '$15', 'the created event');
check(!(new Model\EventCreate(['start_date' => '2027-05-20 19:00:00']))->valid(), 'EventCreate requires a title');
step('create-event');

[$read, , $headers] = $events->getEventWithHttpInfo($created->getId());
$etag = header_value($headers, 'ETag');
check($read->getVenue() instanceof stdClass, 'one venue (a list would be an array)');
$place = typed($read->getVenue(), 'Venue');
check($place instanceof Model\Venue && $place->getId() === $venue->getId() && $place->getCity() === 'Springfield', 'the typed venue');
check($read->getImage() !== false, 'an image (no image is false)');
$image = typed($read->getImage(), 'Image');
check($image->getUrl() === 'https://images.example.org/php.jpg' && $image->getExtension() === 'jpg', 'the typed image');
check(count($read->getOrganizer()) === 1 && $read->getOrganizer()[0]->getOrganizer() === 'PHP Society', 'the typed organizer');
check($read->getCategories()[0]->getSlug() === $category->getSlug() && $read->getTags()[0]->getSlug() === $tag->getSlug(), 'the terms');
$bySlug = $events->getEventBySlug($created->getSlug());
check($bySlug->getId() === $created->getId() && typed($bySlug->getVenue(), 'Venue')->getVenue() === 'PHP Hall', 'read by slug');
step('read-by-id-and-slug');

// A conditional read with the ETag just read: 304, no exception, no body.
[$again, $status] = $events->getEventWithHttpInfo($created->getId(), null, $etag);
check($status === 304 && $again === null, "304 while unchanged, not $status");
step('not-modified');

$listed = $events->listEvents(1, 10, '2027-05-01', '2027-05-31', null, null, null, null, false, null, [$category->getSlug()]);
check($listed instanceof Model\EventList && $listed->getTotal() === 1 && $listed->getEvents()[0]->getId() === $created->getId(), 'the filtered list');
$outside = $events->listEvents(1, 10, '2027-06-01', '2027-06-30', null, null, null, null, false, null, [$category->getSlug()]);
check($outside->getTotal() === 0, 'nothing outside the window');
step('list-with-filters');

// A conditional update through the typed update model: the ETag of the read, then a stale one.
$updated = $events->patchEvent($created->getId(), null, $etag, new Model\EventUpdate(['title' => 'PHP concert, updated']));
check($updated->getTitle() === 'PHP concert, updated' && $updated->getStartDate() === '2027-05-20 19:00:00', 'a partial update');
$stale = failure(fn () => $events->patchEvent($created->getId(), null, $etag, new Model\EventUpdate(['title' => 'Lost'])));
check($stale->getCode() === 412 && $stale->getResponseObject()->getCode() === 'rest_precondition_failed', '412 with a stale ETag');
step('update-if-match');

$draft = new Model\EventCreate(['title' => 'PHP once', 'start_date' => '2027-05-21 10:00:00', 'end_date' => '2027-05-21 11:00:00', 'status' => 'draft']);
$key = 'php-story-' . $created->getId();
[$once, $firstStatus] = $events->createEventWithHttpInfo($draft, $key);
[$twice, $status, $headers] = $events->createEventWithHttpInfo($draft, $key);
check($firstStatus === 201 && $status === 201 && $twice->getId() === $once->getId(), 'the replayed create');
check(header_value($headers, 'Idempotent-Replayed') === 'true', 'Idempotent-Replayed');
step('idempotent-replay');

// Follow the change feed from the cursor read first; an upsert carries the record (a union: typed here).
$seen = [];
$changes = new TecEvents\Api\ChangesApi(null, $admin);
do {
    $feed = $changes->listChanges($cursor, ['event']);
    foreach ($feed->getChanges() as $change) {
        $seen[$change->getId()] = $change;
    }
    $cursor = $feed->getNextCursor();
} while ($feed->getHasMore());
$change = $seen[$created->getId()];
check($change->getAction() === 'upsert' && typed($change->getRecord(), 'Event')->getTitle() === 'PHP concert, updated', "the event's change");
check(isset($seen[$once->getId()]), "the idempotent create's change");
step('change-feed');

$public = new TecEvents\Api\EventsApi(null, $anonymous);
$calendar = $public->listEventsIcs(1, 10, null, null, null, null, null, null, false, null, [$category->getSlug()]);
check(str_starts_with($calendar, "BEGIN:VCALENDAR\r\n") && substr_count($calendar, "BEGIN:VEVENT\r\n") === 1, $calendar);
$single = $public->getEventIcs($created->getId());
check(str_contains($single, "SUMMARY:PHP concert\\, updated\r\n"), $single);
$itemList = $public->listEventsJsonLd(1, 10, null, null, null, null, null, null, false, null, [$category->getSlug()]);
check($itemList instanceof Model\EventItemList && $itemList->getNumberOfItems() === 1, 'one item in the JSON-LD list');
$element = $itemList->getItemListElement()[0];
check($element->getPosition() === 1 && $element->getItem()->getName() === 'PHP concert, updated', 'the JSON-LD event');
check($element->getItem()->getLocation()->{'@type'} === 'Place', 'a Place as the location');
step('ics-and-json-ld-feeds');

$missing = failure(fn () => $events->getEvent(987654));
check($missing->getCode() === 404 && $missing->getResponseObject()->getCode() === 'rest-event-not-found', '404 as a typed error');
$refused = failure(fn () => (new TecEvents\Api\TagsApi(null, $anonymous))->createTag(new Model\TagCreate(['name' => 'Free'])));
$error = $refused->getResponseObject();
check($refused->getCode() === 401 && $error instanceof Model\Error && $error->getCode() === 'rest_forbidden' && $error->getData()->getStatus() === 401, '401 as a typed error');
step('typed-errors');

$deleted = $events->deleteEvent($created->getId(), null, true);
check($deleted->getId() === $created->getId(), 'the deleted event');
check(failure(fn () => $events->getEvent($created->getId()))->getCode() === 404, 'gone after the delete');
step('delete');
