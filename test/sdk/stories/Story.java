// The shared client story (docs/sdks.md, "The client story") against the Java SDK that
// `npm run sdk -- java` generates (openapi-generator 4.3.1, library=native, dateLibrary=java8, the
// templates of scripts/sdk-templates/java/). Compiled with the SDK against Debian's jackson jars and
// run by test/sdk/java.test.ts with the service's address and two users in the environment:
// TEC_BASE_URL, TEC_LOGIN, TEC_SECRET (an administrator, HTTP Basic) and TEC_BEARER (an editor's token).
// Prints `step <name>` once each step has passed; a failed check throws, so the exit status is 1.
//
// What 4.3.1's Java SDK cannot do, and what the story does instead (docs/sdks.md, "What each language
// gets"):
// - a named union (`EventVenue`, `FeaturedImage`, `ChangeRecord`, `JsonLdLocation`, `VenueReference`...)
//   is a `JsonNode` (scripts/sdk.mjs maps them so): the story checks which member it holds and turns it
//   into the typed model with the ApiClient's ObjectMapper (`treeToValue`);
// - library=native has no authentication and no access to response headers: a request interceptor
//   adds `Authorization`, a response interceptor keeps the last answer's headers (ETag, cursors);
// - an error answer is an ApiException with the body as text: read as the `Error` model;
// - a 304 is no exception (scripts/sdk-templates/java/): the call returns null;
// - a text/calendar answer is parsed as JSON by the generated call: the story GETs the iCalendar
//   paths with the ApiClient's HttpClient and base URI.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.example.tec.ApiClient;
import org.example.tec.ApiException;
import org.example.tec.api.CategoriesApi;
import org.example.tec.api.ChangesApi;
import org.example.tec.api.EventsApi;
import org.example.tec.api.OrganizersApi;
import org.example.tec.api.TagsApi;
import org.example.tec.api.VenuesApi;
import org.example.tec.model.Category;
import org.example.tec.model.CategoryCreate;
import org.example.tec.model.Change;
import org.example.tec.model.ChangeFeed;
import org.example.tec.model.Event;
import org.example.tec.model.EventCreate;
import org.example.tec.model.EventItemList;
import org.example.tec.model.EventList;
import org.example.tec.model.EventListItem;
import org.example.tec.model.EventUpdate;
import org.example.tec.model.Image;
import org.example.tec.model.Organizer;
import org.example.tec.model.OrganizerCreate;
import org.example.tec.model.Tag;
import org.example.tec.model.TagCreate;
import org.example.tec.model.Venue;
import org.example.tec.model.VenueCreate;

public class Story {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** An ApiClient for one caller (an Authorization value, or null), remembering the last answer's headers. */
  static final class Caller {
    final ApiClient client = new ApiClient();
    HttpHeaders lastHeaders;
    int lastStatus;

    Caller(String baseUrl, String authorization) {
      URI base = URI.create(baseUrl);
      client.setScheme(base.getScheme()).setHost(base.getHost()).setPort(base.getPort()).setBasePath(base.getRawPath());
      if (authorization != null) client.setRequestInterceptor(request -> request.header("Authorization", authorization));
      client.setResponseInterceptor(response -> {
        lastHeaders = response.headers();
        lastStatus = response.statusCode();
      });
    }

    String header(String name) {
      return lastHeaders.firstValue(name).orElseThrow(() -> new AssertionError("no " + name + " header"));
    }

    /** A pass-through union value as the typed member the story has checked it holds. */
    <T> T typed(JsonNode value, Class<T> type) throws Exception {
      return client.getObjectMapper().treeToValue(value, type);
    }

    /** An error answer's body as the SDK's `Error` model. */
    org.example.tec.model.Error error(ApiException failure) throws Exception {
      return client.getObjectMapper().readValue(failure.getResponseBody(), org.example.tec.model.Error.class);
    }

    /** A GET of a text answer (the iCalendar feeds) through the SDK's HttpClient and base URI. */
    String text(String path) throws Exception {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(client.getBaseUri() + path)).header("Accept", "text/calendar");
      HttpResponse<String> response = client.getHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
      check(response.statusCode() == 200, path + " answered " + response.statusCode());
      return response.body();
    }
  }

  interface Call {
    void run() throws ApiException;
  }

  /** The ApiException that `call` must throw. */
  static ApiException failure(Call call) {
    try {
      call.run();
    } catch (ApiException failure) {
      return failure;
    }
    throw new AssertionError("the call succeeded; an error answer was expected");
  }

  static void check(boolean condition, String what) {
    if (!condition) throw new AssertionError(what);
  }

  static void step(String name) {
    System.out.println("step " + name);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    String baseUrl = System.getenv("TEC_BASE_URL");
    String basic = Base64.getEncoder().encodeToString((System.getenv("TEC_LOGIN") + ":" + System.getenv("TEC_SECRET")).getBytes(StandardCharsets.UTF_8));
    Caller admin = new Caller(baseUrl, "Basic " + basic);
    Caller editor = new Caller(baseUrl, "Bearer " + System.getenv("TEC_BEARER"));
    Caller anonymous = new Caller(baseUrl, null);
    EventsApi events = new EventsApi(admin.client);

    // Where the change feed starts: the cursor of a list read before the story writes anything.
    // (`modified_after`, a date-time, is an OffsetDateTime: docs/sdks.md, "Java".)
    events.listEvents(null, 1L, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, OffsetDateTime.parse("2000-01-01T00:00Z"), null, null, null, null, null, null);
    String cursor = admin.header("X-TEC-Change-Cursor");

    Venue venue = new VenuesApi(admin.client).createVenue(new VenueCreate().venue("Java Hall").city("Springfield").country("United States"), null);
    Organizer organizer = new OrganizersApi(admin.client).createOrganizer(new OrganizerCreate().organizer("Java Society").email("java@example.org"), null);
    Category category = new CategoriesApi(admin.client).createCategory(new CategoryCreate().name("Java concerts"), null);
    Tag tag = new TagsApi(editor.client).createTag(new TagCreate().name("Java picks"), null);
    check("Java Hall".equals(venue.getVenue()) && "Java Society".equals(organizer.getOrganizer()), "venue and organizer");
    check("Java concerts".equals(category.getName()) && "Java picks".equals(tag.getName()), "category and tag");
    step("create-linked-records");

    // Unions of the create model (`venue`, `organizer`, `image`, `cost`, each term) are JSON values.
    EventCreate body = new EventCreate()
        .title("Java concert")
        .startDate("2027-05-20 19:00:00")
        .endDate("2027-05-20 21:00:00")
        .status(EventCreate.StatusEnum.PUBLISH)
        .venue(JSON.numberNode(venue.getId()))
        .organizer(JSON.arrayNode().add(organizer.getId()))
        .categories(List.of(JSON.numberNode(category.getId())))
        .tags(List.of(JSON.numberNode(tag.getId())))
        .image(JSON.textNode("https://images.example.org/java.jpg"))
        .cost(JSON.numberNode(15));
    Event created = events.createEvent(body, null);
    check("Java concert".equals(created.getTitle()) && "$15".equals(created.getCost()), "the created event");
    step("create-event");

    Event read = events.getEvent(created.getId(), null, null, null);
    check(read.getVenue().isObject(), "one venue (a list would be an array)");
    Venue place = admin.typed(read.getVenue(), Venue.class);
    check(place.getId().equals(venue.getId()) && "Springfield".equals(place.getCity()), "the typed venue");
    check(read.getImage().isObject(), "an image (no image is false)");
    Image image = admin.typed(read.getImage(), Image.class);
    check("https://images.example.org/java.jpg".equals(image.getUrl()) && "jpg".equals(image.getExtension()), "the typed image");
    check(read.getOrganizer().size() == 1 && "Java Society".equals(read.getOrganizer().get(0).getOrganizer()), "the typed organizer");
    check(category.getSlug().equals(read.getCategories().get(0).getSlug()) && tag.getSlug().equals(read.getTags().get(0).getSlug()), "the terms");
    Event bySlug = events.getEventBySlug(created.getSlug(), null, null, null);
    check(bySlug.getId().equals(created.getId()) && "Java Hall".equals(admin.typed(bySlug.getVenue(), Venue.class).getVenue()), "read by slug");
    step("read-by-id-and-slug");

    // A conditional read with the ETag of a read: 304, no exception, null (the templates' api.mustache).
    events.getEvent(created.getId(), null, null, null);
    Event again = events.getEvent(created.getId(), null, admin.header("ETag"), null);
    check(again == null && admin.lastStatus == 304, "304 while unchanged, not " + admin.lastStatus);
    step("not-modified");

    List<String> categories = List.of(category.getSlug());
    EventList listed = events.listEvents(null, null, "2027-05-01", "2027-05-31", null, null, null, null, null, null, categories, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    check(listed.getTotal() == 1 && listed.getEvents().get(0).getId().equals(created.getId()), "the filtered list: " + listed.getTotal());
    EventList outside = events.listEvents(null, null, "2027-06-01", "2027-06-30", null, null, null, null, null, null, categories, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    check(outside.getTotal() == 0, "nothing outside the window");
    step("list-with-filters");

    // A conditional update through the typed update model: the ETag of the read, then a stale one.
    events.getEvent(created.getId(), null, null, null);
    String etag = admin.header("ETag");
    Event updated = events.patchEvent(created.getId(), null, etag, new EventUpdate().title("Java concert, updated"));
    check("Java concert, updated".equals(updated.getTitle()) && "2027-05-20 19:00:00".equals(updated.getStartDate()), "a partial update");
    ApiException stale = failure(() -> events.patchEvent(created.getId(), null, etag, new EventUpdate().title("Lost")));
    check(stale.getCode() == 412 && "rest_precondition_failed".equals(admin.error(stale).getCode()), "412 with a stale ETag");
    step("update-if-match");

    EventCreate draft = new EventCreate().title("Java once").startDate("2027-05-21 10:00:00").endDate("2027-05-21 11:00:00").status(EventCreate.StatusEnum.DRAFT);
    String key = "java-story-" + created.getId();
    Event once = events.createEvent(draft, key);
    Event twice = events.createEvent(draft, key);
    check(twice.getId().equals(once.getId()) && "true".equals(admin.header("Idempotent-Replayed")), "the replayed create");
    step("idempotent-replay");

    // Follow the change feed from the cursor read first; an upsert carries the record (a union: typed here).
    Map<Long, Change> seen = new HashMap<>();
    ChangesApi changes = new ChangesApi(admin.client);
    for (;;) {
      ChangeFeed feed = changes.listChanges(cursor, List.of("event"), null, null, null, null);
      for (Change change : feed.getChanges()) seen.put(change.getId(), change);
      cursor = feed.getNextCursor();
      if (!feed.getHasMore()) break;
    }
    Change change = seen.get(created.getId());
    check(change != null && change.getAction() == Change.ActionEnum.UPSERT, "the event's change");
    check("Java concert, updated".equals(admin.typed(change.getRecord(), Event.class).getTitle()), "the change's typed record");
    check(seen.containsKey(once.getId()), "the idempotent create's change");
    step("change-feed");

    String calendar = anonymous.text("/events.ics?categories=" + category.getSlug());
    check(calendar.startsWith("BEGIN:VCALENDAR\r\n") && calendar.split("BEGIN:VEVENT\r\n", -1).length == 2, calendar);
    String single = anonymous.text("/events/" + created.getId() + "/ics");
    check(single.contains("SUMMARY:Java concert\\, updated\r\n"), single);
    EventItemList itemList = new EventsApi(anonymous.client).listEventsJsonLd(null, null, null, null, null, null, null, null, null, null, categories, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    check(itemList.getNumberOfItems() == 1, "one item in the JSON-LD list");
    EventListItem element = itemList.getItemListElement().get(0);
    check(element.getPosition() == 1 && "Java concert, updated".equals(element.getItem().getName()), "the JSON-LD event");
    check("Place".equals(element.getItem().getLocation().path("@type").asText()), "a Place as the location");
    step("ics-and-json-ld-feeds");

    ApiException missing = failure(() -> events.getEvent(987654L, null, null, null));
    check(missing.getCode() == 404 && "rest-event-not-found".equals(admin.error(missing).getCode()), "404 as a typed error");
    ApiException refused = failure(() -> new TagsApi(anonymous.client).createTag(new TagCreate().name("Free"), null));
    org.example.tec.model.Error error = admin.error(refused);
    check(refused.getCode() == 401 && "rest_forbidden".equals(error.getCode()) && error.getData().getStatus() == 401, "401 as a typed error");
    step("typed-errors");

    Event deleted = events.deleteEvent(created.getId(), null, true, null, null);
    check(deleted.getId().equals(created.getId()), "the deleted event");
    check(failure(() -> events.getEvent(created.getId(), null, null, null)).getCode() == 404, "gone after the delete");
    step("delete");
  }
}
