package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	cosmos_proto "github.com/cosmos/cosmos-proto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// marshal writes m as the Cosmos SDK's gateway writes it (gogoproto's
// jsonpb with OrigName and EmitDefaults), which differs from protojson in
// ways clients see: every field is present (unset messages and empty bytes
// as null, empty lists as []), cosmos.Dec strings are decimals with 18
// places ("1.000000000000000000", their protobuf form is the integer
// scaled by 10^18), and Anys are expanded under "@type". Field order is
// declaration order; 64-bit integers are strings, enums their names.
func marshal(m proto.Message) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeMessage(&buf, m.ProtoReflect()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeMessage(buf *bytes.Buffer, m protoreflect.Message) error {
	switch m.Descriptor().FullName() {
	case "google.protobuf.Any":
		return writeAny(buf, m, "")
	case "google.protobuf.Timestamp":
		f := m.Descriptor().Fields()
		t := time.Unix(m.Get(f.ByName("seconds")).Int(), m.Get(f.ByName("nanos")).Int()).UTC()
		writeString(buf, t.Format(time.RFC3339Nano))
		return nil
	case "google.protobuf.Duration":
		f := m.Descriptor().Fields()
		d := time.Duration(m.Get(f.ByName("seconds")).Int())*time.Second + time.Duration(m.Get(f.ByName("nanos")).Int())
		writeString(buf, strconv.FormatFloat(d.Seconds(), 'f', -1, 64)+"s")
		return nil
	}
	buf.WriteByte('{')
	if err := writeFields(buf, m, true); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

// writeFields writes m's fields; first tells whether nothing precedes them.
func writeFields(buf *bytes.Buffer, m protoreflect.Message, first bool) error {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !m.Has(fd) {
			continue // an unset member of a oneof is not written
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, string(fd.Name()))
		buf.WriteByte(':')
		if err := writeField(buf, fd, m); err != nil {
			return err
		}
	}
	return nil
}

func writeField(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, m protoreflect.Message) error {
	v := m.Get(fd)
	switch {
	case fd.IsList():
		l := v.List()
		buf.WriteByte('[')
		for i := 0; i < l.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeValue(buf, fd, l.Get(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case fd.IsMap():
		buf.WriteByte('{')
		first := true
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			writeString(buf, k.String())
			buf.WriteByte(':')
			err = writeValue(buf, fd.MapValue(), mv)
			return err == nil
		})
		buf.WriteByte('}')
		return err
	case fd.Message() != nil && !m.Has(fd):
		buf.WriteString("null")
		return nil
	}
	return writeValue(buf, fd, v)
}

func writeValue(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return writeMessage(buf, v.Message())
	case protoreflect.BoolKind:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		writeString(buf, strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		writeString(buf, strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		buf.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			writeString(buf, string(ev.Name()))
		} else {
			buf.WriteString(strconv.FormatInt(int64(v.Enum()), 10))
		}
	case protoreflect.BytesKind:
		if isDec(fd) { // a LegacyDec's bytes are its protobuf text form
			writeString(buf, decString(string(v.Bytes())))
			break
		}
		if len(v.Bytes()) == 0 {
			buf.WriteString("null")
		} else {
			writeString(buf, base64.StdEncoding.EncodeToString(v.Bytes()))
		}
	case protoreflect.StringKind:
		s := v.String()
		if isDec(fd) {
			s = decString(s)
		}
		writeString(buf, s)
	default:
		return fmt.Errorf("field %s: kind %v", fd.FullName(), fd.Kind())
	}
	return nil
}

// writeAny expands an Any: its type URL under "@type", then the fields of
// the message it holds (a registered type, Ember's ethermint ones included).
func writeAny(buf *bytes.Buffer, m protoreflect.Message, _ string) error {
	f := m.Descriptor().Fields()
	url, value := m.Get(f.ByName("type_url")).String(), m.Get(f.ByName("value")).Bytes()
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(url)
	if err != nil {
		return fmt.Errorf("any type %q: %w", url, err)
	}
	inner := mt.New()
	if err := proto.Unmarshal(value, inner.Interface()); err != nil {
		return fmt.Errorf("any %q: %w", url, err)
	}
	buf.WriteString(`{"@type":`)
	writeString(buf, url)
	if err := writeFields(buf, inner, false); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

// isDec tells a cosmos.Dec field (option (cosmos_proto.scalar) = "cosmos.Dec").
func isDec(fd protoreflect.FieldDescriptor) bool {
	opts := fd.Options()
	if opts == nil || !proto.HasExtension(opts, cosmos_proto.E_Scalar) {
		return false
	}
	return proto.GetExtension(opts, cosmos_proto.E_Scalar).(string) == "cosmos.Dec"
}

// decString turns a Dec's protobuf form (the value times 10^18, an integer)
// into its JSON form with 18 decimal places.
func decString(s string) string {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return s
	}
	sign := ""
	if n.Sign() < 0 {
		sign, n = "-", n.Neg(n)
	}
	digits := fmt.Sprintf("%019s", n.String())
	return sign + digits[:len(digits)-18] + "." + digits[len(digits)-18:]
}

// populate sets the request fields a path or query parameter names, as the
// gateway does: "address", "pagination.limit", repeated "events" (one
// value per occurrence). Unknown names are ignored, as the gateway does.
func populate(m protoreflect.Message, name string, values []string) error {
	parts := strings.Split(name, ".")
	for _, p := range parts[:len(parts)-1] {
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(p))
		if fd == nil || fd.Message() == nil || fd.IsList() || fd.IsMap() {
			return nil
		}
		m = m.Mutable(fd).Message()
	}
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(parts[len(parts)-1]))
	if fd == nil || fd.IsMap() || (fd.Message() != nil) {
		return nil
	}
	for _, s := range values {
		v, err := scalar(fd, s)
		if err != nil {
			return fmt.Errorf("parameter %s=%q: %v", name, s, err)
		}
		if fd.IsList() {
			m.Mutable(fd).List().Append(v)
		} else {
			m.Set(fd, v)
		}
	}
	return nil
}

func scalar(fd protoreflect.FieldDescriptor, s string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BoolKind:
		b, err := strconv.ParseBool(s)
		return protoreflect.ValueOfBool(b), err
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := strconv.ParseInt(s, 10, 32)
		return protoreflect.ValueOfInt32(int32(n)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := strconv.ParseInt(s, 10, 64)
		return protoreflect.ValueOfInt64(n), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(s, 10, 32)
		return protoreflect.ValueOfUint32(uint32(n)), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := strconv.ParseUint(s, 10, 64)
		return protoreflect.ValueOfUint64(n), err
	case protoreflect.BytesKind:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			b, err = base64.URLEncoding.DecodeString(s)
		}
		return protoreflect.ValueOfBytes(b), err
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByName(protoreflect.Name(s)); ev != nil {
			return protoreflect.ValueOfEnum(ev.Number()), nil
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || fd.Enum().Values().ByNumber(protoreflect.EnumNumber(n)) == nil {
			return protoreflect.Value{}, fmt.Errorf("not a value of %s", fd.Enum().FullName())
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
	}
	return protoreflect.Value{}, fmt.Errorf("unsupported kind %v", fd.Kind())
}

// Marshal is m in the gateway's JSON (see marshal), for the CLI's queries
// of the same services.
func Marshal(m proto.Message) ([]byte, error) { return marshal(m) }
