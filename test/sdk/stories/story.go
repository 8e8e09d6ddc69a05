// The shared client story (docs/sdks.md, "The client story") against the Go SDK that
// `npm run sdk -- go` generates (openapi-generator 4.3.1, package tecevents, the templates of
// scripts/sdk-templates/go/). Built with Debian's Go against the SDK alone (go.mod replaces the SDK's
// module path with its folder; nothing is downloaded) and run by test/sdk/go.test.ts with the
// service's address and two users in the environment: TEC_BASE_URL, TEC_LOGIN, TEC_SECRET (an
// administrator, HTTP Basic) and TEC_BEARER (an editor's token). Prints `step <name>` once each step
// has passed; a failed check exits 1.
//
// What 4.3.1's Go SDK gives, and what the story does with it (docs/sdks.md, "What each language gets"):
//   - a named union (`EventVenue`, `FeaturedImage`, `ChangeRecord`, `VenueReference`...) is
//     json.RawMessage: the story checks which member it holds and unmarshals it into the typed model;
//   - optional parameters and bodies go in the call's Opts struct as tecevents.Some(value);
//   - every call returns the *http.Response (headers, status), and an error answer is a
//     GenericOpenAPIError whose Model() is the typed `Error`;
//   - a 304 is no error: the zero value, the response with its status, and a nil error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	sdk "example.org/tec/tecevents"
)

func check(ok bool, format string, args ...interface{}) {
	if !ok {
		fmt.Fprintf(os.Stderr, "check failed: "+format+"\n", args...)
		os.Exit(1)
	}
}

// must stops the story on an unexpected error, showing the answer's body.
func must(err error, what string) {
	if err != nil {
		var failure sdk.GenericOpenAPIError
		if errors.As(err, &failure) {
			fmt.Fprintf(os.Stderr, "%s: %v %s\n", what, err, failure.Body())
		} else {
			fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		}
		os.Exit(1)
	}
}

func step(name string) {
	fmt.Println("step " + name)
}

// typed unmarshals a pass-through union value into the member the story has checked it holds.
func typed(value json.RawMessage, into interface{}) {
	must(json.Unmarshal(value, into), "unmarshal "+string(value))
}

// failure is the typed error answer of a call that must fail: its status and its `Error` model.
func failure[T any](_ T, response *http.Response, err error) (int, sdk.Error) {
	check(err != nil, "the call succeeded; an error answer was expected")
	var answer sdk.GenericOpenAPIError
	check(errors.As(err, &answer), "not an answer: %v", err)
	model, ok := answer.Model().(sdk.Error)
	check(ok, "the error's model is not an Error: %s", answer.Body())
	return response.StatusCode, model
}

func main() {
	configuration := sdk.NewConfiguration()
	configuration.BasePath = os.Getenv("TEC_BASE_URL")
	client := sdk.NewAPIClient(configuration)
	// Credentials travel in the context: Basic for the administrator, a bearer token for the editor.
	admin := context.WithValue(context.Background(), sdk.ContextBasicAuth, sdk.BasicAuth{UserName: os.Getenv("TEC_LOGIN"), Password: os.Getenv("TEC_SECRET")})
	editor := context.WithValue(context.Background(), sdk.ContextAccessToken, os.Getenv("TEC_BEARER"))
	anonymous := context.Background()
	events := client.EventsApi

	// Where the change feed starts: the cursor of a list read before the story writes anything.
	_, response, err := events.ListEvents(admin, &sdk.ListEventsOpts{PerPage: sdk.Some[int64](1)})
	must(err, "list")
	cursor := response.Header.Get("X-TEC-Change-Cursor")
	check(cursor != "", "X-TEC-Change-Cursor on the list")

	venue, _, err := client.VenuesApi.CreateVenue(admin, sdk.VenueCreate{Venue: "Go Hall", City: "Springfield", Country: "United States"}, nil)
	must(err, "create venue")
	organizer, _, err := client.OrganizersApi.CreateOrganizer(admin, sdk.OrganizerCreate{Organizer: "Go Society", Email: "go@example.org"}, nil)
	must(err, "create organizer")
	category, _, err := client.CategoriesApi.CreateCategory(admin, sdk.CategoryCreate{Name: "Go concerts"}, nil)
	must(err, "create category")
	tag, _, err := client.TagsApi.CreateTag(editor, sdk.TagCreate{Name: "Go picks"}, nil)
	must(err, "create tag")
	check(venue.Venue == "Go Hall" && organizer.Organizer == "Go Society", "venue and organizer")
	check(category.Name == "Go concerts" && tag.Name == "Go picks", "category and tag")
	step("create-linked-records")

	// Unions of the create model (`venue`, `organizer`, `image`, `cost`, each term) are JSON values.
	raw := func(value interface{}) json.RawMessage {
		text, err := json.Marshal(value)
		must(err, "marshal")
		return text
	}
	created, _, err := events.CreateEvent(admin, sdk.EventCreate{
		Title: "Go concert", StartDate: "2027-05-20 19:00:00", EndDate: "2027-05-20 21:00:00", Status: "publish",
		Venue: raw(venue.Id), Organizer: raw([]int64{organizer.Id}),
		Categories: []sdk.TermReference{raw(category.Id)}, Tags: []sdk.TermReference{raw(tag.Id)},
		Image: raw("https://images.example.org/go.jpg"), Cost: raw(15),
	}, nil)
	must(err, "create event")
	check(created.Title == "Go concert" && created.Cost == "$15", "the created event: %+v", created)
	step("create-event")

	read, response, err := events.GetEvent(admin, created.Id, nil)
	must(err, "get event")
	etag := response.Header.Get("ETag")
	check(strings.HasPrefix(string(read.Venue), "{"), "one venue (a list would be an array): %s", read.Venue)
	var place sdk.Venue
	typed(read.Venue, &place)
	check(place.Id == venue.Id && place.City == "Springfield", "the typed venue: %+v", place)
	check(string(read.Image) != "false", "an image (no image is false)")
	var image sdk.Image
	typed(read.Image, &image)
	check(image.Url == "https://images.example.org/go.jpg" && image.Extension == "jpg", "the typed image: %+v", image)
	check(len(read.Organizer) == 1 && read.Organizer[0].Organizer == "Go Society", "the typed organizer")
	check(read.Categories[0].Slug == category.Slug && read.Tags[0].Slug == tag.Slug, "the terms")
	bySlug, _, err := events.GetEventBySlug(admin, created.Slug, nil)
	must(err, "get by slug")
	var slugPlace sdk.Venue
	typed(bySlug.Venue, &slugPlace)
	check(bySlug.Id == created.Id && slugPlace.Venue == "Go Hall", "read by slug")
	step("read-by-id-and-slug")

	// A conditional read with the ETag just read: 304, no error, nothing to decode.
	again, response, err := events.GetEvent(admin, created.Id, &sdk.GetEventOpts{IfNoneMatch: sdk.Some(etag)})
	must(err, "conditional read")
	check(response.StatusCode == http.StatusNotModified && again.Id == 0, "304 while unchanged, not %d", response.StatusCode)
	step("not-modified")

	window := func(from, to string) *sdk.ListEventsOpts {
		return &sdk.ListEventsOpts{Categories: sdk.Some([]string{category.Slug}), StartDate: sdk.Some(from), EndDate: sdk.Some(to)}
	}
	listed, _, err := events.ListEvents(admin, window("2027-05-01", "2027-05-31"))
	must(err, "list in the window")
	check(listed.Total == 1 && listed.Events[0].Id == created.Id, "the filtered list: %d", listed.Total)
	outside, _, err := events.ListEvents(admin, window("2027-06-01", "2027-06-30"))
	must(err, "list outside the window")
	check(outside.Total == 0, "nothing outside the window")
	step("list-with-filters")

	// A conditional update through the typed update model: the ETag of the read, then a stale one.
	updated, _, err := events.PatchEvent(admin, created.Id, &sdk.PatchEventOpts{IfMatch: sdk.Some(etag), EventUpdate: sdk.Some(sdk.EventUpdate{Title: "Go concert, updated"})})
	must(err, "patch")
	check(updated.Title == "Go concert, updated" && updated.StartDate == "2027-05-20 19:00:00", "a partial update")
	status, stale := failure(events.PatchEvent(admin, created.Id, &sdk.PatchEventOpts{IfMatch: sdk.Some(etag), EventUpdate: sdk.Some(sdk.EventUpdate{Title: "Lost"})}))
	check(status == 412 && stale.Code == "rest_precondition_failed", "412 with a stale ETag: %d %s", status, stale.Code)
	step("update-if-match")

	draft := sdk.EventCreate{Title: "Go once", StartDate: "2027-05-21 10:00:00", EndDate: "2027-05-21 11:00:00", Status: "draft"}
	key := &sdk.CreateEventOpts{IdempotencyKey: sdk.Some(fmt.Sprintf("go-story-%d", created.Id))}
	once, first, err := events.CreateEvent(admin, draft, key)
	must(err, "first create")
	twice, response, err := events.CreateEvent(admin, draft, key)
	must(err, "replayed create")
	check(first.StatusCode == 201 && response.StatusCode == 201 && twice.Id == once.Id, "the replayed create")
	check(response.Header.Get("Idempotent-Replayed") == "true", "Idempotent-Replayed")
	step("idempotent-replay")

	// Follow the change feed from the cursor read first; an upsert carries the record (a union: typed here).
	seen := map[int64]sdk.Change{}
	for {
		feed, _, err := client.ChangesApi.ListChanges(admin, &sdk.ListChangesOpts{After: sdk.Some(cursor), Types: sdk.Some([]string{"event"})})
		must(err, "changes")
		for _, change := range feed.Changes {
			seen[change.Id] = change
		}
		cursor = feed.NextCursor
		if !feed.HasMore {
			break
		}
	}
	change, found := seen[created.Id]
	check(found && change.Action == "upsert", "the event's change")
	var record sdk.Event
	typed(change.Record, &record)
	check(record.Title == "Go concert, updated", "the change's typed record")
	_, found = seen[once.Id]
	check(found, "the idempotent create's change")
	step("change-feed")

	calendar, _, err := events.ListEventsIcs(anonymous, &sdk.ListEventsIcsOpts{Categories: sdk.Some([]string{category.Slug})})
	must(err, "the iCalendar feed")
	check(strings.HasPrefix(calendar, "BEGIN:VCALENDAR\r\n") && strings.Count(calendar, "BEGIN:VEVENT\r\n") == 1, "%s", calendar)
	single, _, err := events.GetEventIcs(anonymous, created.Id, nil)
	must(err, "the event's iCalendar")
	check(strings.Contains(single, "SUMMARY:Go concert\\, updated\r\n"), "%s", single)
	itemList, _, err := events.ListEventsJsonLd(anonymous, &sdk.ListEventsJsonLdOpts{Categories: sdk.Some([]string{category.Slug})})
	must(err, "the JSON-LD feed")
	check(itemList.NumberOfItems == 1, "one item in the JSON-LD list")
	element := itemList.ItemListElement[0]
	check(element.Position == 1 && element.Item.Name == "Go concert, updated", "the JSON-LD event")
	var location struct {
		Type string `json:"@type"`
	}
	typed(element.Item.Location, &location)
	check(location.Type == "Place", "a Place as the location")
	step("ics-and-json-ld-feeds")

	status, missing := failure(events.GetEvent(admin, 987654, nil))
	check(status == 404 && missing.Code == "rest-event-not-found", "404 as a typed error: %d %s", status, missing.Code)
	status, refused := failure(client.TagsApi.CreateTag(anonymous, sdk.TagCreate{Name: "Free"}, nil))
	check(status == 401 && refused.Code == "rest_forbidden" && refused.Data.Status == 401, "401 as a typed error: %d %s", status, refused.Code)
	step("typed-errors")

	deleted, _, err := events.DeleteEvent(admin, created.Id, &sdk.DeleteEventOpts{Force: sdk.Some(true)})
	must(err, "delete")
	check(deleted.Id == created.Id, "the deleted event")
	status, _ = failure(events.GetEvent(admin, created.Id, nil))
	check(status == 404, "gone after the delete")
	step("delete")
}
